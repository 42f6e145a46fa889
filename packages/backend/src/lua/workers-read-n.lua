--[[
  Read what a worker keeps outside plain strings, for many workers of one automation type
  (the console's worker list): index membership, the state hash and the history length.
  Read-only. The caller sends it inside a MULTI right after one MGET of the workers' string
  keys (hardware, config, gen, stats), so the read stays one snapshot per chunk while those
  values reach the client straight from MGET: pulling them through Lua cost Redis as much
  again as all the rest.

  ARGV[1]      "full", "row" or "index"
  KEYS[1]      wkrs:<type>                    set of worker ids
  "full", for worker i = 1..n, two keys:
  KEYS[2i]     wkr:<type>:<id>:state          hash
  KEYS[2i+1]   wkr:<type>:<id>:stats:history  zset
  "row" and "index", for worker i = 1..n, one key:
  KEYS[i+1]    wkr:<type>:<id>:state          hash

  Each worker id is its state key without "wkr:<type>:" and ":state".

  Returns one MessagePack array (cmsgpack.pack: one bulk string per call, which the client
  decodes far faster than thousands of RESP elements) of two: the names of the fields each
  worker has, in order (FIELDS below), then every worker's values, one after the other. The
  client reads the values by those names, never by position (src/redis/worker-read.ts).
  "full": member (1 when the id is in wkrs:<type> else 0), state, last_seen and last_error
  (the state hash's fields), history (the history length), wrong (a mask of keys that exist
  with the wrong type: 1 state, 2 stats:history); "row" (a worker list's rows, which never
  show the history): as "full" without history; "index": member, state, last_seen,
  has_last_error (1 when the hash has a last_error field else 0: its text is not needed,
  only whether the hash holds any field Fleet writes) and wrong.
  Absent values are false. One bad key must not fail a page of thousands of workers:
  errors are caught per key.
]]
local full = ARGV[1] == "full"
local row = ARGV[1] == "row"
local per = full and 2 or 1
local n = (#KEYS - 1) / per
local prefix = 4 + (#KEYS[1] - 5) + 2 -- after "wkr:" .. type .. ":"
local suffix = -(#":state" + 1)

-- membership: SMISMEMBER in slices (unpack is bounded by Lua's C stack)
local member = {}
for s = 1, n, 1000 do
  local last = math.min(s + 999, n)
  local ids = {}
  for i = s, last do ids[i - s + 1] = string.sub(KEYS[per * i - per + 2], prefix, suffix) end
  local flags = redis.pcall("SMISMEMBER", KEYS[1], unpack(ids))
  if flags.err then flags = {} end
  for i = s, last do member[i] = flags[i - s + 1] or 0 end
end

local FIELDS = full and { "member", "state", "last_seen", "last_error", "history", "wrong" }
  or row and { "member", "state", "last_seen", "last_error", "wrong" }
  or { "member", "state", "last_seen", "has_last_error", "wrong" }
local width = #FIELDS
local at = {}
for i, name in ipairs(FIELDS) do at[name] = i end

local out = {}
for i = 1, n do
  local o = (i - 1) * width
  local k = per * i - per + 2
  local wrong = 0
  local state = redis.pcall("HMGET", KEYS[k], "state", "last_seen", "last_error")
  if state.err then
    state = { false, false, false }
    wrong = 1
  end
  out[o + at.member] = member[i]
  out[o + at.state] = state[1]
  out[o + at.last_seen] = state[2]
  if full then
    out[o + at.last_error] = state[3]
    local history = redis.pcall("ZCARD", KEYS[k + 1])
    if type(history) == "table" then
      history = 0
      wrong = wrong + 2
    end
    out[o + at.history] = history
  elseif row then
    out[o + at.last_error] = state[3]
  else
    out[o + at.has_last_error] = state[3] and 1 or 0
  end
  out[o + at.wrong] = wrong
end
return cmsgpack.pack({ FIELDS, out })
