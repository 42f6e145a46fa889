--[[
  Begin deleting a pool: rename its hash to a console key, so that it is gone for every
  reader and writer at once (O(1) whatever its size), and note the deletion, whose claim
  keys the caller then removes in chunks (pool-delete-chunk-n.lua).

  KEYS[1] fleet:pool:<name>                     hash item id -> item JSON
  KEYS[2] fleet:console:pool-deletes            hash deleting key -> pool name
  KEYS[3] fleet:console:pool-delete:<random>    where the items go (must not exist)

  ARGV[1] the pool's name

  Returns the number of items the pool had, or -1 when there is no pool (nothing done).
  A key of another type fails with WRONGTYPE (HLEN) before anything is changed.
]]
if redis.call("EXISTS", KEYS[1]) == 0 then return -1 end
local n = redis.call("HLEN", KEYS[1])
redis.call("RENAME", KEYS[1], KEYS[3])
redis.call("HSET", KEYS[2], KEYS[3], ARGV[1])
return n
