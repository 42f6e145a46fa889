--[[
  Give a reserved task back: end the reservation, then schedule the body for later
  or push it onto the normal list at once.

  KEYS[1] fleet:queue:<name>:processing       zset task id -> deadline
  KEYS[2] fleet:queue:<name>:processing:body  hash task id -> body
  KEYS[3] fleet:queue:<name>:scheduled        zset body -> ready_at
  KEYS[4] fleet:queue:<name>                  list (normal)

  ARGV[1] task id
  ARGV[2] body
  ARGV[3] delay seconds (> 0 schedules)
  ARGV[4] now, unix seconds

  Returns 1 when the id was reserved, else 0 (the body is requeued either way, as Python does).
]]
local removed = redis.call("ZREM", KEYS[1], ARGV[1])
redis.call("HDEL", KEYS[2], ARGV[1])
local delay = tonumber(ARGV[3])
if delay > 0 then
  redis.call("ZADD", KEYS[3], tonumber(ARGV[4]) + delay, ARGV[2])
else
  redis.call("RPUSH", KEYS[4], ARGV[2])
end
return removed
