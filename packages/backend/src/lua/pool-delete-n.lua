--[[
  Delete a pool and the claim key of each of its items. The claim keys were computed by
  the client from HKEYS; if the pool changed since, nothing is deleted and the client retries.

  KEYS[1]   fleet:pool:<name>                  hash item id -> item JSON
  KEYS[i+1] fleet:pool:<name>:claim:<ARGV[i]>  claim key of item i

  ARGV[i]   item id i

  Returns the number of items deleted, or -1 when the item set no longer matches.
]]
if redis.call("HLEN", KEYS[1]) ~= #ARGV then return -1 end
for i = 1, #ARGV do
  if redis.call("HEXISTS", KEYS[1], ARGV[i]) == 0 then return -1 end
end
for i = 1, #KEYS, 1000 do
  redis.call("DEL", unpack(KEYS, i, math.min(i + 999, #KEYS)))
end
return #ARGV
