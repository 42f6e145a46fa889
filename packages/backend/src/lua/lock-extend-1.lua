--[[
  Extend a lock only when the caller still holds it (the same token): a holder renewing
  before its TTL runs out keeps the lock; one whose lock expired and was re-acquired by
  someone else gets 0 and must stop acting as the holder.

  KEYS[1] fleet:lock:<name>  string, token

  ARGV[1] token
  ARGV[2] new hold, milliseconds

  Returns 1 when extended, else 0.
]]
if redis.call("GET", KEYS[1]) == ARGV[1] then
  return redis.call("PEXPIRE", KEYS[1], ARGV[2])
end
return 0
