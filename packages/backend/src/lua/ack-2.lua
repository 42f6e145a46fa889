--[[
  Acknowledge a task: end its reservation.

  KEYS[1] fleet:queue:<name>:processing       zset task id -> deadline
  KEYS[2] fleet:queue:<name>:processing:body  hash task id -> body

  ARGV[1] task id

  Returns 1 when the id was reserved, else 0.
]]
local removed = redis.call("ZREM", KEYS[1], ARGV[1])
redis.call("HDEL", KEYS[2], ARGV[1])
return removed
