--[[
  Second step of reserving a large body (reserve-6.lua registered it under a provisional id
  so as not to read it in Redis): move the registration to the task id the caller read from
  the body with the TypeScript reader, or drop it when the body has no usable id.

  KEYS[1] fleet:queue:<name>:processing       zset task id -> deadline
  KEYS[2] fleet:queue:<name>:processing:body  hash task id -> body

  ARGV[1] the provisional id reserve-6.lua registered
  ARGV[2] the lease it answered (the deadline, "%.17g")
  ARGV[3] the task id (src/task-body.ts), or "" for a body without a usable id

  Returns 1 when registered under ARGV[3] (same deadline, so the lease stays valid), 0 when
  dropped (the body is delivered once, unregistered, as a small one would be), -1 when the
  provisional reservation is gone or no longer ours (a sweep requeued it after its deadline
  passed, or it was removed): nothing is changed and the caller must not deliver the body.
  Constant work but for copying the body within Redis.
]]
local score = redis.call("ZSCORE", KEYS[1], ARGV[1])
if not score or tonumber(score) ~= tonumber(ARGV[2]) then return -1 end
local body = redis.call("HGET", KEYS[2], ARGV[1])
if not body then return -1 end
redis.call("ZREM", KEYS[1], ARGV[1])
redis.call("HDEL", KEYS[2], ARGV[1])
if ARGV[3] == "" then return 0 end
redis.call("ZADD", KEYS[1], score, ARGV[3])
redis.call("HSET", KEYS[2], ARGV[3], body)
return 1
