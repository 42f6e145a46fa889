--[[
  Reserves one sign-in attempt BEFORE its password is checked: refused while either
  budget is backing off, else counted in both as a failure until signin-settle-2 says
  otherwise. Counting first is what makes the throttle hold when many attempts arrive at
  once: each one sees the attempts of all before it, checked or not yet.

  KEYS[1] fleet:console:signin:pair:<id>   hash {n, until}: one user name from one address
  KEYS[2] fleet:console:signin:addr:<id>   hash {n, until}: one address, any user name

  ARGV[1] now, unix ms
  ARGV[2] pair: failures before attempts must wait
  ARGV[3] pair: forgotten this many ms after its last counted attempt
  ARGV[4] address: failures before attempts must wait
  ARGV[5] address: its count lives this many ms from its first failure
  ARGV[6] first wait, ms; it doubles with each further failure
  ARGV[7] longest wait, ms

  Returns {1, 0} when reserved, {0, ms to wait} when refused (nothing counted).
]]
local now = tonumber(ARGV[1])
local base = tonumber(ARGV[6])
local longest = tonumber(ARGV[7])

local function waiting(key)
  local u = tonumber(redis.call("HGET", KEYS[key], "until") or "0") or 0
  if u > now then return u - now end
  return 0
end

local wait = math.max(waiting(1), waiting(2))
if wait > 0 then return {0, wait} end

local function count(key, free, ttl, sliding)
  local n = redis.call("HINCRBY", KEYS[key], "n", 1)
  if n >= free then
    local delay = math.min(base * 2 ^ math.min(n - free, 40), longest)
    redis.call("HSET", KEYS[key], "until", string.format("%.0f", now + delay))
  end
  if sliding or redis.call("PTTL", KEYS[key]) < 0 then redis.call("PEXPIRE", KEYS[key], ttl) end
end

count(1, tonumber(ARGV[2]), tonumber(ARGV[3]), true)
count(2, tonumber(ARGV[4]), tonumber(ARGV[5]), false)
return {1, 0}
