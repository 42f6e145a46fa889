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
  ARGV[5] lease (optional): the deadline this holder's reserve or last extension returned.
          When given, the reservation is touched only if it is still that one.

  Returns 1 when the id was reserved, else 0 (the body is requeued either way, as Python does);
  -1 when the lease was given and lost (nothing done: the task belongs to its new holder).
]]
-- A holder that names its lease acts only on its own reservation: after a sweep re-queued
-- the task and another slot reserved it, the score is that slot's deadline, not ours.
local lease = ARGV[5]
if lease and lease ~= "" then
  local cur = redis.call("ZSCORE", KEYS[1], ARGV[1])
  if not cur or tonumber(cur) ~= tonumber(lease) then return -1 end
end
local removed = redis.call("ZREM", KEYS[1], ARGV[1])
redis.call("HDEL", KEYS[2], ARGV[1])
local delay = tonumber(ARGV[3])
if delay > 0 then
  redis.call("ZADD", KEYS[3], tonumber(ARGV[4]) + delay, ARGV[2])
else
  redis.call("RPUSH", KEYS[4], ARGV[2])
end
return removed
