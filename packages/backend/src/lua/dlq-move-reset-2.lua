--[[
  One chunk of "requeue all" that gives the tasks their attempts back: the caller read the
  head of the dead list and computed each body's replacement (attempts set to 0, every other
  byte kept); this moves them one by one while the head is still the body the caller read,
  pushing the replacement onto the normal list. Atomic per chunk: every task is in exactly
  one of the two lists at every instant. A head that changed meanwhile (someone requeued or
  deleted it) stops the chunk: the caller reads again.

  KEYS[1] fleet:queue:<name>:dead  list
  KEYS[2] fleet:queue:<name>       list (normal)

  ARGV[2i-1] the body expected at the head, exact bytes
  ARGV[2i]   what to push for it

  Returns { moved, dead letters left }.
]]
local moved = 0
for i = 1, #ARGV, 2 do
  if redis.call("LINDEX", KEYS[1], 0) ~= ARGV[i] then break end
  redis.call("LPOP", KEYS[1])
  redis.call("RPUSH", KEYS[2], ARGV[i + 1])
  moved = moved + 1
end
return { moved, redis.call("LLEN", KEYS[1]) }
