--[[
  Ends some sessions of one user and drops them from the user's index (the caller read
  the ids from that index).

  KEYS[1]    fleet:console:user-sessions:<user>   zset, id -> expiry
  KEYS[2..n] fleet:console:session:<id>           one per id, in ARGV order

  ARGV[i]    the id of KEYS[i + 1]

  Returns how many of those sessions were still live.
]]
local live = 0
for i = 2, #KEYS do
  live = live + redis.call("DEL", KEYS[i])
  redis.call("ZREM", KEYS[1], ARGV[i - 1])
end
return live
