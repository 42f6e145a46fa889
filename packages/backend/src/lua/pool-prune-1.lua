--[[
  Remove pool items the client judged Python's _prune_pool would remove (undecodable by
  Python, or expired by "x": codec.ts poolPruneVictims), but only those whose stored value is
  still the one it judged: an item re-put in between stays.

  KEYS[1] fleet:pool:<name>  hash item id -> item JSON

  ARGV[2i-1] item id
  ARGV[2i]   the value it had when judged

  Returns the number of items removed.
]]
local removed = 0
for i = 1, #ARGV, 2 do
  if redis.call("HGET", KEYS[1], ARGV[i]) == ARGV[i + 1] then
    removed = removed + redis.call("HDEL", KEYS[1], ARGV[i])
  end
end
return removed
