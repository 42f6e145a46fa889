--[[
  One chunk of a pool deletion (after pool-delete-begin-3.lua): drop these items from the
  deleted pool's renamed hash and remove their claim keys, except the claim of an item that
  is in the pool again (put after the deletion began: a new pool, whose claims are its own).

  KEYS[1]   fleet:pool:<name>                   the live pool hash (usually absent)
  KEYS[2]   fleet:console:pool-delete:<id>      the deleted pool's items
  KEYS[i+2] fleet:pool:<name>:claim:<ARGV[i]>   claim key of item i

  ARGV[i]   item id i (at most a few hundred per call)

  Returns the number of claim keys removed.
]]
local removed = 0
for i = 1, #ARGV do
  if redis.call("HEXISTS", KEYS[1], ARGV[i]) == 0 then removed = removed + redis.call("UNLINK", KEYS[i + 2]) end
end
if #ARGV > 0 then redis.call("HDEL", KEYS[2], unpack(ARGV)) end
return removed
