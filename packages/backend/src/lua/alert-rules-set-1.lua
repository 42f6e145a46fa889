--[[
  Write the console's alert rules document and bump its generation, only when the generation
  is still the one the writer read (a compare-and-set, like a worker's config).

  KEYS[1] fleet:console:alerts:rules  hash {doc, gen}

  ARGV[1] the document (JSON)
  ARGV[2] expected generation (0: never written)

  Returns {1, new gen} when written, {0, current gen} when the generation moved.
]]
local gen = tonumber(redis.call("HGET", KEYS[1], "gen") or "0") or 0
if gen ~= tonumber(ARGV[2]) then
  return { 0, gen }
end
gen = gen + 1
redis.call("HSET", KEYS[1], "doc", ARGV[1], "gen", tostring(gen))
return { 1, gen }
