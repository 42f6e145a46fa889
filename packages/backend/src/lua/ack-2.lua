--[[
  Acknowledge a task: end its reservation.

  KEYS[1] fleet:queue:<name>:processing       zset task id -> deadline
  KEYS[2] fleet:queue:<name>:processing:body  hash task id -> body

  ARGV[1] task id
  ARGV[2] lease (optional): the deadline this holder's reserve or last extension returned.
          When given, the reservation is touched only if it is still that one.

  Returns 1 when the id was reserved, else 0; -1 when the lease was given and lost (nothing done).
]]
-- A holder that names its lease acts only on its own reservation: after a sweep re-queued
-- the task and another slot reserved it, the score is that slot's deadline, not ours.
local lease = ARGV[2]
if lease and lease ~= "" then
  local cur = redis.call("ZSCORE", KEYS[1], ARGV[1])
  if not cur or tonumber(cur) ~= tonumber(lease) then return -1 end
end
local removed = redis.call("ZREM", KEYS[1], ARGV[1])
redis.call("HDEL", KEYS[2], ARGV[1])
return removed
