--[[
  Roll a config out to many workers, all or nothing: every expected generation is checked
  before anything is written.

  KEYS[2i-1] wkr:<type>:<id>:config  for worker i = 1..n
  KEYS[2i]   wkr:<type>:<id>:gen     (absent or empty reads as 0, as in Python)

  ARGV[2i-1] config JSON for worker i
  ARGV[2i]   expected generation for worker i, or "" for none

  Returns { 1, gen 1, ..., gen n } when written; { 0, i, current gen or false } for the first
  stale worker i; { -1, i, raw gen } for the first worker whose gen is not an integer.
]]
local n = #KEYS / 2
for i = 1, n do
  local raw = redis.call("GET", KEYS[2 * i])
  local current = 0
  if raw and raw ~= "" then
    if not (raw == "0" or (#raw <= 18 and string.match(raw, "^-?[1-9]%d*$"))) then return { -1, i, raw } end
    current = tonumber(raw)
  end
  local expected = ARGV[2 * i]
  if expected ~= "" and tonumber(expected) ~= current then
    return { 0, i, raw or false }
  end
end
local out = { 1 }
for i = 1, n do
  redis.call("SET", KEYS[2 * i - 1], ARGV[2 * i - 1])
  -- INCR refuses an empty value: write the 1 it would have made from 0
  if redis.call("GET", KEYS[2 * i]) == "" then
    redis.call("SET", KEYS[2 * i], "1")
    out[i + 1] = 1
  else
    out[i + 1] = redis.call("INCR", KEYS[2 * i])
  end
end
return out
