--[[
  Remove workers that are offline, each checked and removed in one atomic step (the bulk
  "remove offline workers" of the console's worker list). A worker whose last_seen reads as a
  number at or after the cutoff is kept: it reported since the console listed it as offline.
  A missing or unreadable last_seen is offline (API.md). The caller sends at most 100 workers
  per call, so one call stays far below a millisecond per worker.

  KEYS[1]          wkrs:all
  for worker i = 1..n, seven keys from k = 1 + 7(i-1):
  KEYS[k+1]        wkrs:<type>
  KEYS[k+2..k+7]   wkr:<type>:<id>:hardware, :config, :gen, :state, :stats, :stats:history

  ARGV[1]          cutoff, unix seconds
  ARGV[2i]         worker id (member of wkrs:<type>)
  ARGV[2i+1]       "<type>|<id>" (member of wkrs:all)

  Returns one integer per worker: 1 removed, 0 nothing was there, -1 online (kept).
  Keys of the wrong type are removed like any other; an index of the wrong type is left as is.
]]
local cutoff = tonumber(ARGV[1])
local n = (#KEYS - 1) / 7
local out = {}
for i = 1, n do
  local k = 1 + 7 * (i - 1)
  local seen = redis.pcall("HGET", KEYS[k + 5], "last_seen")
  local online = false
  if type(seen) == "string" then
    local t = tonumber(seen)
    -- t == t leaves NaN out; inf counts as online (never removed by mistake)
    if t and t == t and t >= cutoff then online = true end
  end
  if online then
    out[i] = -1
  else
    local removed = 0
    local a = redis.pcall("SREM", KEYS[k + 1], ARGV[2 * i])
    if type(a) == "number" then removed = removed + a end
    local b = redis.pcall("SREM", KEYS[1], ARGV[2 * i + 1])
    if type(b) == "number" then removed = removed + b end
    removed = removed + redis.call("DEL", KEYS[k + 2], KEYS[k + 3], KEYS[k + 4], KEYS[k + 5], KEYS[k + 6], KEYS[k + 7])
    out[i] = removed > 0 and 1 or 0
  end
end
return out
