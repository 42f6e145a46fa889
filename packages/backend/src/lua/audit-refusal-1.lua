--[[
  Counts one refusal of an actor (a user, or a client address) in its current window and
  says whether the audit trail records it, so that no actor can fill the capped trail and
  push older entries out: the first `limit` of a window are recorded, the next one becomes
  a marker ("further refusals are counted, not listed"), the rest are only counted. The
  first refusal of a later window learns how many were not listed in the one before.

  KEYS[1] fleet:console:audit:refusals:<actor>   hash {start (unix ms), n}

  ARGV[1] now, unix ms
  ARGV[2] refusals recorded per window
  ARGV[3] window, ms
  ARGV[4] the counter is kept this many ms after the actor's last refusal

  Returns {decision, suppressed in the previous window, start of the window it speaks of}:
  decision 1 record, 2 write the marker instead, 0 record nothing.
]]
local now = tonumber(ARGV[1])
local limit = tonumber(ARGV[2])
local start = tonumber(redis.call("HGET", KEYS[1], "start") or "")
if start == nil or now >= start + tonumber(ARGV[3]) then
  local before = 0
  if start ~= nil then
    before = math.max(0, (tonumber(redis.call("HGET", KEYS[1], "n") or "0") or 0) - limit)
  end
  redis.call("DEL", KEYS[1])
  redis.call("HSET", KEYS[1], "start", string.format("%.0f", now), "n", 1)
  redis.call("PEXPIRE", KEYS[1], ARGV[4])
  return {1, before, start or 0}
end
local n = redis.call("HINCRBY", KEYS[1], "n", 1)
redis.call("PEXPIRE", KEYS[1], ARGV[4])
if n <= limit then return {1, 0, start} end
if n == limit + 1 then return {2, 0, start} end
return {0, 0, start}
