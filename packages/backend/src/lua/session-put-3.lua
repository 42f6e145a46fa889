--[[
  Stores a console session and indexes it under its user. With an audit entry, appends
  that first: a script stops at its first error, so a session whose audit entry cannot be
  written (a wrong-typed trail, a full memory) is not stored either.

  KEYS[1] fleet:console:audit                  list, newest first
  KEYS[2] fleet:console:session:<id>           string, the session record
  KEYS[3] fleet:console:user-sessions:<user>   zset, id -> expiry (unix ms)

  ARGV[1] the record
  ARGV[2] lifetime, ms
  ARGV[3] id
  ARGV[4] now, unix ms
  ARGV[5] audit entry, "" for none
  ARGV[6] audit cap, 0 for none

  Returns 1.
]]
local ttl = tonumber(ARGV[2])
local now = tonumber(ARGV[4])
if ARGV[5] ~= "" then
  redis.call("LPUSH", KEYS[1], ARGV[5])
  local cap = tonumber(ARGV[6])
  if cap > 0 then redis.call("LTRIM", KEYS[1], 0, cap - 1) end
end
redis.call("SET", KEYS[2], ARGV[1], "PX", ttl)
-- sessions that expired on their own leave the index here, so it never grows without bound
redis.call("ZREMRANGEBYSCORE", KEYS[3], "-inf", string.format("%.0f", now))
redis.call("ZADD", KEYS[3], string.format("%.0f", now + ttl), ARGV[3])
if redis.call("PTTL", KEYS[3]) < ttl then redis.call("PEXPIRE", KEYS[3], ttl) end
return 1
