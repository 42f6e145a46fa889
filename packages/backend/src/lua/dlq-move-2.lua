--[[
  One chunk of "requeue all": moves up to ARGV[1] dead letters from the head of the dead
  list to the tail of the normal list, in order. Atomic per chunk, so every body is in
  exactly one of the two lists at every instant: a caller that dies between chunks loses
  and duplicates nothing, and calling again moves the rest.

  KEYS[1] fleet:queue:<name>:dead  list
  KEYS[2] fleet:queue:<name>       list (normal)

  ARGV[1] at most this many bodies (small: the chunk runs alone in Redis)

  Returns { moved, dead letters left }.
]]
local max = tonumber(ARGV[1])
local moved = 0
while moved < max do
  if not redis.call("LMOVE", KEYS[1], KEYS[2], "LEFT", "RIGHT") then break end
  moved = moved + 1
end
return { moved, redis.call("LLEN", KEYS[1]) }
