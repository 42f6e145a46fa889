--[[
  Take every copy of one dead letter at the places the caller found them (dlqTake reads the
  list in chunks outside Redis): each place is checked to still hold exactly the body, then
  overwritten with a tombstone no body can equal, and the tombstones are removed by one LREM
  counted from the end nearer to them, which stops at the last one. So the script costs the
  distance from that end, never a pass over the whole list (at a million dead letters, LREM
  of the body itself read all of them: 25-32 ms); nothing is changed when any place moved
  (the caller finds the body again). For a requeue, as many copies are pushed onto the
  normal list in the same step.

  KEYS[1] fleet:queue:<name>:dead  list
  KEYS[2] fleet:queue:<name>       list (normal)

  ARGV[1] the body, exact bytes
  ARGV[2] "delete", or "requeue"
  ARGV[3] for a requeue, what to push (the body with its attempts back to 0, or the body)
  ARGV[4] the tombstone (unique: a random token no stored body is)
  ARGV[5..] the indexes of the copies, ascending

  Returns the number of copies taken, or -1 when a place no longer holds the body.
]]
local body, tomb = ARGV[1], ARGV[4]
local n = #ARGV - 4
if n < 1 then return 0 end
for i = 5, #ARGV do
  if redis.call("LINDEX", KEYS[1], ARGV[i]) ~= body then return -1 end
end
local len = redis.call("LLEN", KEYS[1])
for i = 5, #ARGV do redis.call("LSET", KEYS[1], ARGV[i], tomb) end
local first, last = tonumber(ARGV[5]), tonumber(ARGV[#ARGV])
if last + 1 <= len - first then
  redis.call("LREM", KEYS[1], n, tomb)
else
  redis.call("LREM", KEYS[1], -n, tomb)
end
if ARGV[2] == "requeue" then
  local i = 0
  while i < n do
    local batch = {}
    for j = 1, math.min(1000, n - i) do batch[j] = ARGV[3] end
    redis.call("RPUSH", KEYS[2], unpack(batch))
    i = i + #batch
  end
end
return n
