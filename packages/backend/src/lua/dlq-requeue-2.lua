--[[
  Move dead letters back onto the normal pending list, by content.

  KEYS[1] fleet:queue:<name>:dead  list
  KEYS[2] fleet:queue:<name>       list (normal)

  ARGV[1] "all" or "refs"
  ARGV[2] sentinel: a value no body has, used to mark entries for one LREM
  ARGV[3..] refs: hex SHA-1 of the bodies to move (every occurrence of each)

  Returns { moved count, missing ref, ... } in dead-letter order.
]]
if ARGV[1] == "all" then
  local all = redis.call("LRANGE", KEYS[1], 0, -1)
  for i = 1, #all, 1000 do
    redis.call("RPUSH", KEYS[2], unpack(all, i, math.min(i + 999, #all)))
  end
  redis.call("DEL", KEYS[1])
  return { #all }
end

local wanted, found = {}, {}
for i = 3, #ARGV do wanted[ARGV[i]] = true end
local items = redis.call("LRANGE", KEYS[1], 0, -1)
local moved = 0
for i, body in ipairs(items) do
  local ref = redis.sha1hex(body)
  if wanted[ref] then
    found[ref] = true
    redis.call("LSET", KEYS[1], i - 1, ARGV[2])
    redis.call("RPUSH", KEYS[2], body)
    moved = moved + 1
  end
end
if moved > 0 then redis.call("LREM", KEYS[1], 0, ARGV[2]) end

local out = { moved }
for i = 3, #ARGV do
  if not found[ARGV[i]] then
    out[#out + 1] = ARGV[i]
    found[ARGV[i]] = true
  end
end
return out
