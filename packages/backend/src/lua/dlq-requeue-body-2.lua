--[[
  Move every copy of one dead letter back onto the normal pending list: one body, found
  by the caller outside Redis (dlqLocate). LREM compares bytes in C, so the script costs
  one pass over the list however long it is, and removes only bodies equal to ARGV[1]:
  a body changed or moved meanwhile is simply not there (0), never another one instead.

  KEYS[1] fleet:queue:<name>:dead  list
  KEYS[2] fleet:queue:<name>       list (normal)

  ARGV[1] the body, exact bytes
  ARGV[2] what to push instead (the body with its attempts back to 0), or absent: the body

  Returns the number of copies moved.
]]
local n = redis.call("LREM", KEYS[1], 0, ARGV[1])
local pushed = ARGV[2] or ARGV[1]
local i = 0
while i < n do
  local batch = {}
  for j = 1, math.min(1000, n - i) do batch[j] = pushed end
  redis.call("RPUSH", KEYS[2], unpack(batch))
  i = i + #batch
end
return n
