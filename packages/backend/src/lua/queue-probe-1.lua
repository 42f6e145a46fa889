--[[
  One pending list as the console's queue history sees it on a tick: its length, its tail
  (the newest body) unless that is long, and the oldest of the bodies it saw at the tail on
  earlier ticks ("marks") that is still within the first MAXLEN entries, with its position.
  Read-only. Fleet pushes at the tail (RPUSH) and reserves at the head, so a mark's position
  says how many entries left the list since it was seen (Fleet keeps no counter of that).

  KEYS[1] fleet:queue:<name>[:high|:low]  list, pending bodies

  ARGV[1] tail bytes: a longer tail is answered as false (its length is still given)
  ARGV[2] MAXLEN: entries from the head each mark is looked for in (LPOS ... MAXLEN)
  ARGV[3..] marks, oldest first

  Returns {length, tail or false, tail bytes, index of the mark found (1-based, 0: none), its position or -1}.
]]
local len = redis.call("LLEN", KEYS[1])
if len == 0 then
  return { 0, false, 0, 0, -1 }
end
local tail = redis.call("LINDEX", KEYS[1], -1)
local tailBytes = string.len(tail)
if tailBytes > tonumber(ARGV[1]) then
  tail = false
end
-- Marks are in push order: the first one found is the oldest still there; the ones before it
-- were reserved (or are beyond MAXLEN, when a later one is not found either).
for i = 3, #ARGV do
  local pos = redis.call("LPOS", KEYS[1], ARGV[i], "MAXLEN", ARGV[2])
  if pos then
    return { len, tail, tailBytes, i - 2, pos }
  end
end
return { len, tail, tailBytes, 0, -1 }
