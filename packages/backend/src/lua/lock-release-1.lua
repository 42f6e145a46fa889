--[[
  Release a lock only when the caller still holds it: a lock that expired and was
  re-acquired by someone else carries another token.

  KEYS[1] fleet:lock:<name>  string, token

  ARGV[1] token

  Returns 1 when released, else 0.
]]
if redis.call("GET", KEYS[1]) == ARGV[1] then
  return redis.call("DEL", KEYS[1])
end
return 0
