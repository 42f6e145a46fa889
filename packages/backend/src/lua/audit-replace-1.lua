--[[
  Completes an audit entry written before its change: replaces the newest entry equal
  to ARGV[1] (byte for byte; entries carry a random id, so it is that one) in place by
  ARGV[2], or removes it when ARGV[2] is "". When it is no longer there (trimmed away
  meanwhile) a replacement is appended instead, so the outcome is never lost.

  KEYS[1] fleet:console:audit   list, newest first

  ARGV[1] the entry to find
  ARGV[2] its replacement, "" to remove it
  ARGV[3] cap of the list, 0 for none

  Returns 1 when the entry was found, else 0.
]]
local i = redis.call("LPOS", KEYS[1], ARGV[1])
if i then
  if ARGV[2] == "" then
    redis.call("LREM", KEYS[1], 1, ARGV[1])
  else
    redis.call("LSET", KEYS[1], i, ARGV[2])
  end
  return 1
end
if ARGV[2] ~= "" then
  redis.call("LPUSH", KEYS[1], ARGV[2])
  local cap = tonumber(ARGV[3])
  if cap > 0 then redis.call("LTRIM", KEYS[1], 0, cap - 1) end
end
return 0
