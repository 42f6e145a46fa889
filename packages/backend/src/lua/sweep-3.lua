--[[
  Requeue reservations whose visibility deadline has passed: one chunk of at most ARGV[2]
  of them (the oldest first), so that a sweep of a million runs in short atomic steps;
  the caller repeats until a chunk comes back short.

  KEYS[1] fleet:queue:<name>:processing       zset task id -> deadline
  KEYS[2] fleet:queue:<name>:processing:body  hash task id -> body
  KEYS[3] fleet:queue:<name>                  list (normal): where expired bodies go

  ARGV[1] now, unix seconds
  ARGV[2] at most this many reservations

  Returns { requeued count, orphan id, orphan id, ... }: an orphan is an expired id whose
  body is missing; it is dropped from :processing (nothing could ever requeue it).
  Each id looked at is removed from :processing, so the next chunk starts after it.
]]
local expired = redis.call("ZRANGEBYSCORE", KEYS[1], "-inf", tonumber(ARGV[1]), "LIMIT", 0, tonumber(ARGV[2]))
local out = { 0 }
for _, id in ipairs(expired) do
  local body = redis.call("HGET", KEYS[2], id)
  if body then
    redis.call("RPUSH", KEYS[3], body)
    redis.call("HDEL", KEYS[2], id)
    out[1] = out[1] + 1
  else
    out[#out + 1] = id
  end
  redis.call("ZREM", KEYS[1], id)
end
out[#out + 1] = #expired
return out
