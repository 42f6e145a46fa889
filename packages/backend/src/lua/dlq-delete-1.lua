--[[
  Delete dead letters by content.

  KEYS[1] fleet:queue:<name>:dead  list

  ARGV[1] "all" or "refs"
  ARGV[2] sentinel: a value no body has, used to mark entries for one LREM
  ARGV[3..] refs: hex SHA-1 of the bodies to delete (every occurrence of each)

  Returns { deleted count, missing ref, ... }.
]]
if ARGV[1] == "all" then
  local n = redis.call("LLEN", KEYS[1])
  redis.call("DEL", KEYS[1])
  return { n }
end

local wanted, found = {}, {}
for i = 3, #ARGV do wanted[ARGV[i]] = true end
local items = redis.call("LRANGE", KEYS[1], 0, -1)
local deleted = 0
for i, body in ipairs(items) do
  local ref = redis.sha1hex(body)
  if wanted[ref] then
    found[ref] = true
    redis.call("LSET", KEYS[1], i - 1, ARGV[2])
    deleted = deleted + 1
  end
end
if deleted > 0 then redis.call("LREM", KEYS[1], 0, ARGV[2]) end

local out = { deleted }
for i = 3, #ARGV do
  if not found[ARGV[i]] then
    out[#out + 1] = ARGV[i]
    found[ARGV[i]] = true
  end
end
return out
