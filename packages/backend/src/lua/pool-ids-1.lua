--[[
  A small pool's item ids, for paging it by offset: HKEYS only when HLEN is at most ARGV[1],
  so that asking costs O(ARGV[1]) at most whatever the pool's size.

  KEYS[1] fleet:pool:<name>  hash item id -> item JSON

  ARGV[1] the most items to read the ids of

  Returns the ids (unsorted), or the item count when there are more than ARGV[1].
]]
local n = redis.call("HLEN", KEYS[1])
if n > tonumber(ARGV[1]) then return n end
return redis.call("HKEYS", KEYS[1])
