--[[
  One chunk of a bulk action on a search's matches (issue 14.2): removes the given bodies
  from one list of a queue, each re-checked byte for byte where the caller read it, pushing
  a replacement onto the normal pending list for a requeue, and advances the job's cursor
  and counts in the same atomic step. So a body is never lost or pushed twice, whenever the
  process dies, and a job resumed elsewhere starts where the last chunk ended.

  A body is looked for at its index (less the drift found so far: workers pop pending lists
  from the head, and nothing is ever inserted before an entry, so bodies only move toward the
  head), else among the 1000 entries before that (at most 16 such looks per call). Not found
  in a look that reached the head of the list, it is gone (taken or removed meanwhile) and
  counted missing; not found otherwise (it may have moved further, or no look was left) its
  fate is unknown: it is returned, and the caller reads it again later.
  Found bodies are overwritten with a tombstone (LSET), then all removed with one LREM from
  the nearer end: one pass over part of the list per chunk, not one per body.

  Acts only while the job is `running` and owned by ARGV[2] (a cancelled job, or one another
  process took over, changes nothing and answers -1).

  KEYS[1] the source list (fleet:queue:<name>[:high|:low|:dead])
  KEYS[2] fleet:queue:<name>  list (normal), where requeued bodies go
  KEYS[3] fleet:console:bulk:job:<id>  hash

  ARGV[1] "requeue" or "delete"
  ARGV[2] the owner token (the job lock's)
  ARGV[3] the tombstone: a value no body holds (random, per call)
  ARGV[4] where the chunk was read (index)
  ARGV[5] how many entries the chunk read
  ARGV[6] the job's part index being read
  ARGV[7] "1" when this chunk was the last of its part
  ARGV[8] the caller's scan state to keep in the job's `scan` field ("" leaves it)
  ARGV[9+3i] index, ARGV[10+3i] body (exact bytes), ARGV[11+3i] what to push for it

  Returns { 1 or -1, taken, missing, next cursor, { item numbers (0-based) whose fate is unknown } }.
]]
local src, dst, job = KEYS[1], KEYS[2], KEYS[3]
if redis.call("HGET", job, "state") ~= "running" or redis.call("HGET", job, "owner") ~= ARGV[2] then
  return { -1, 0, 0, 0, {} }
end
local tomb = ARGV[3]
local drift, taken, missing, looks = 0, 0, 0, 0
local first, last = nil, nil
local unknown = {}
for i = 9, #ARGV, 3 do
  local hint, body = tonumber(ARGV[i]), ARGV[i + 1]
  local pos = hint - drift
  local found, reachedHead = nil, pos < 0
  if pos >= 0 and redis.call("LINDEX", src, pos) == body then
    found = pos
  elseif looks < 16 and pos >= 0 then
    looks = looks + 1
    local lo = math.max(0, pos - 1000)
    local seg = redis.call("LRANGE", src, lo, pos)
    for j = #seg, 1, -1 do
      if seg[j] == body then
        found = lo + j - 1
        break
      end
    end
    if found then drift = hint - found end
    reachedHead = lo == 0
  end
  if not found and not reachedHead then
    unknown[#unknown + 1] = (i - 9) / 3
  elseif found then
    redis.call("LSET", src, found, tomb)
    if ARGV[1] == "requeue" then redis.call("RPUSH", dst, ARGV[i + 2]) end
    taken = taken + 1
    if first == nil or found < first then first = found end
    if last == nil or found > last then last = found end
  else
    missing = missing + 1
  end
end
if taken > 0 then
  local len = redis.call("LLEN", src)
  if len - first < last then
    redis.call("LREM", src, -taken, tomb)
  else
    redis.call("LREM", src, taken, tomb)
  end
end
local part, cursor = tonumber(ARGV[6]), 0
if ARGV[7] == "1" then
  part = part + 1
else
  cursor = math.max(0, tonumber(ARGV[4]) + tonumber(ARGV[5]) - taken - drift)
end
redis.call("HSET", job, "part", part, "cursor", cursor)
redis.call("HINCRBY", job, "done", taken)
redis.call("HINCRBY", job, "missing", missing)
redis.call("HINCRBY", job, "scanned", tonumber(ARGV[5]))
if ARGV[8] ~= "" then redis.call("HSET", job, "scan", ARGV[8]) end
return { 1, taken, missing, cursor, unknown }
