--[[
  Read every field of many workers in one call (the console's worker list). Read-only.
  One script call per chunk of workers replaces seven commands per worker, which is what
  bounds a pipelined read of thousands of workers on the client side. Strings are fetched
  with a few large MGETs and index membership with one SMISMEMBER per type.

  For worker i = 1..n, seven keys:
  KEYS[7i-6] wkr:<type>:<id>:hardware       string
  KEYS[7i-5] wkr:<type>:<id>:config         string
  KEYS[7i-4] wkr:<type>:<id>:gen            string
  KEYS[7i-3] wkr:<type>:<id>:stats          string
  KEYS[7i-2] wkr:<type>:<id>:state          hash
  KEYS[7i-1] wkr:<type>:<id>:stats:history  zset
  KEYS[7i]   wkrs:<type>                    set

  ARGV[i] worker id i (the member looked up in wkrs:<type>)

  Returns one flat list, ten entries per worker: hardware, config, gen, stats, the state
  hash's state, last_seen and last_error fields, the history length, 1 when the id is in
  wkrs:<type> else 0, and a bit mask of keys that exist with the wrong type (1 hardware,
  2 config, 4 gen, 8 stats, 16 state, 32 stats:history). Absent values are nil. One bad key
  must not fail a page of thousands of workers: errors are caught per key.
]]
local n = #ARGV
local out = {}

-- strings: MGET in slices (unpack is bounded by Lua's C stack)
local strings = {}
for i = 1, n do
  local k = 7 * (i - 1)
  strings[#strings + 1] = KEYS[k + 1]
  strings[#strings + 1] = KEYS[k + 2]
  strings[#strings + 1] = KEYS[k + 3]
  strings[#strings + 1] = KEYS[k + 4]
end
local values = {}
for s = 1, #strings, 1000 do
  local part = redis.call("MGET", unpack(strings, s, math.min(s + 999, #strings)))
  for j = 1, #part do values[s + j - 1] = part[j] end
end

-- membership: one SMISMEMBER per type index
local byIndex = {}
local order = {}
for i = 1, n do
  local idx = KEYS[7 * i]
  local group = byIndex[idx]
  if not group then
    group = {}
    byIndex[idx] = group
    order[#order + 1] = idx
  end
  group[#group + 1] = i
end
local member = {}
for _, idx in ipairs(order) do
  local group = byIndex[idx]
  for s = 1, #group, 1000 do
    local ids = {}
    for j = s, math.min(s + 999, #group) do ids[#ids + 1] = ARGV[group[j]] end
    local flags = redis.pcall("SMISMEMBER", idx, unpack(ids))
    if flags.err then flags = {} end
    for j = s, math.min(s + 999, #group) do member[group[j]] = flags[j - s + 1] or 0 end
  end
end

for i = 1, n do
  local k = 7 * (i - 1)
  local o = 10 * (i - 1)
  local wrong = 0
  -- MGET reads a key of another type as nil: tell absent from wrong-typed
  for j = 1, 4 do
    if not values[4 * i - 4 + j] and redis.call("EXISTS", KEYS[k + j]) == 1 then
      wrong = wrong + 2 ^ (j - 1)
    end
  end
  local state = redis.pcall("HMGET", KEYS[k + 5], "state", "last_seen", "last_error")
  if state.err then
    state = { false, false, false }
    wrong = wrong + 16
  end
  local history = redis.pcall("ZCARD", KEYS[k + 6])
  if type(history) == "table" then
    history = 0
    wrong = wrong + 32
  end
  out[o + 1] = values[4 * i - 3]
  out[o + 2] = values[4 * i - 2]
  out[o + 3] = values[4 * i - 1]
  out[o + 4] = values[4 * i]
  out[o + 5] = state[1]
  out[o + 6] = state[2]
  out[o + 7] = state[3]
  out[o + 8] = history
  out[o + 9] = member[i]
  out[o + 10] = wrong
end
return out
