--[[
  Settles an attempt reserved by signin-reserve-2. `success`: the pair's record is
  cleared and the address's count refunded (a right password is not a failure, but it
  does not wipe the address's other failures either); `refund`: the password was never
  checked, both counts are refunded. A count back below its free failures waits no more.

  KEYS[1] fleet:console:signin:pair:<id>   hash {n, until}
  KEYS[2] fleet:console:signin:addr:<id>   hash {n, until}

  ARGV[1] "success" or "refund"
  ARGV[2] pair: failures before attempts must wait
  ARGV[3] address: failures before attempts must wait

  Returns 1.
]]
local function refund(key, free)
  if redis.call("EXISTS", KEYS[key]) == 0 then return end
  local n = redis.call("HINCRBY", KEYS[key], "n", -1)
  if n <= 0 then
    redis.call("DEL", KEYS[key])
  elseif n < free then
    redis.call("HDEL", KEYS[key], "until")
  end
end

if ARGV[1] == "success" then
  redis.call("DEL", KEYS[1])
else
  refund(1, tonumber(ARGV[2]))
end
refund(2, tonumber(ARGV[3]))
return 1
