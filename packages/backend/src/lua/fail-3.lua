--[[
  Fail a reserved task: end the reservation and dead-letter the body.

  KEYS[1] fleet:queue:<name>:processing       zset task id -> deadline
  KEYS[2] fleet:queue:<name>:processing:body  hash task id -> body
  KEYS[3] fleet:queue:<name>:dead             list

  ARGV[1] task id
  ARGV[2] body

  Returns 1 when the id was reserved, else 0 (the body is dead-lettered either way).
]]
local removed = redis.call("ZREM", KEYS[1], ARGV[1])
redis.call("HDEL", KEYS[2], ARGV[1])
redis.call("RPUSH", KEYS[3], ARGV[2])
return removed
