--[[
  Read every field of many workers of one automation type in one call (the console's
  worker list). Read-only. One call per chunk replaces seven commands per worker, which is
  what bounds a pipelined read of thousands of workers on the client side. Strings are
  fetched with a few large MGETs and index membership with SMISMEMBER.

  KEYS[1]      wkrs:<type>                    set of worker ids
  For worker i = 1..n, six keys:
  KEYS[6i-4]   wkr:<type>:<id>:hardware       string
  KEYS[6i-3]   wkr:<type>:<id>:config         string
  KEYS[6i-2]   wkr:<type>:<id>:gen            string
  KEYS[6i-1]   wkr:<type>:<id>:stats          string
  KEYS[6i]     wkr:<type>:<id>:state          hash
  KEYS[6i+1]   wkr:<type>:<id>:stats:history  zset

  No ARGV: each worker id is its hardware key without "wkr:<type>:" and ":hardware".

  Returns one flat list, ten entries per worker: hardware, config, gen, stats, the state
  hash's state, last_seen and last_error fields, the history length, 1 when the id is in
  wkrs:<type> else 0, and a bit mask of keys that exist with the wrong type (1 hardware,
  2 config, 4 gen, 8 stats, 16 state, 32 stats:history). Absent values are nil. One bad key
  must not fail a page of thousands of workers: errors are caught per key.
]]
local n = (#KEYS - 1) / 6
local prefix = 4 + (#KEYS[1] - 5) + 2 -- after "wkr:" .. type .. ":"
local suffix = -(#":hardware" + 1)

-- strings: MGET in slices (unpack is bounded by Lua's C stack)
local values = {}
local strings = {}
local function flush()
  if #strings == 0 then return end
  local part = redis.call("MGET", unpack(strings))
  local base = #values
  for j = 1, #part do values[base + j] = part[j] end
  strings = {}
end
for i = 1, n do
  local k = 6 * i - 4
  strings[#strings + 1] = KEYS[k]
  strings[#strings + 1] = KEYS[k + 1]
  strings[#strings + 1] = KEYS[k + 2]
  strings[#strings + 1] = KEYS[k + 3]
  if #strings >= 1000 then flush() end
end
flush()

-- membership: SMISMEMBER in slices
local member = {}
for s = 1, n, 1000 do
  local ids = {}
  for i = s, math.min(s + 999, n) do ids[#ids + 1] = string.sub(KEYS[6 * i - 4], prefix, suffix) end
  local flags = redis.pcall("SMISMEMBER", KEYS[1], unpack(ids))
  if flags.err then flags = {} end
  for i = s, math.min(s + 999, n) do member[i] = flags[i - s + 1] or 0 end
end

local out = {}
for i = 1, n do
  local k = 6 * i - 4
  local o = 10 * (i - 1)
  local wrong = 0
  -- MGET reads a key of another type as nil: tell absent from wrong-typed
  for j = 1, 4 do
    if not values[4 * i - 4 + j] and redis.call("EXISTS", KEYS[k + j - 1]) == 1 then
      wrong = wrong + 2 ^ (j - 1)
    end
  end
  local state = redis.pcall("HMGET", KEYS[k + 4], "state", "last_seen", "last_error")
  if state.err then
    state = { false, false, false }
    wrong = wrong + 16
  end
  local history = redis.pcall("ZCARD", KEYS[k + 5])
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
