--[[
  Write a worker's config and bump its generation, optionally only if the generation
  is still the one the writer read.

  KEYS[1] wkr:<type>:<id>:config  string, JSON
  KEYS[2] wkr:<type>:<id>:gen     string, integer (absent or empty reads as 0, as in Python)

  ARGV[1] config JSON
  ARGV[2] expected generation, or "" for an unconditional write

  Returns { 1, new gen } when written; { 0, current gen or false } when the expected
  generation is stale; { -1, raw gen } when the stored gen is not an integer INCR accepts (nothing written,
  since INCR would fail after the SET and scripts do not roll back).
]]
local raw = redis.call("GET", KEYS[2])
local current = 0
if raw and raw ~= "" then
  if not (raw == "0" or (#raw <= 18 and string.match(raw, "^-?[1-9]%d*$"))) then return { -1, raw } end
  current = tonumber(raw)
end
if ARGV[2] ~= "" and tonumber(ARGV[2]) ~= current then
  return { 0, raw or false }
end
redis.call("SET", KEYS[1], ARGV[1])
-- INCR refuses an empty value: write the 1 it would have made from 0
if raw == "" then
  redis.call("SET", KEYS[2], "1")
  return { 1, 1 }
end
return { 1, redis.call("INCR", KEYS[2]) }
