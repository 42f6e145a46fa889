--[[
  Extend a running task's lease: push its visibility deadline out, if the reservation is
  still the caller's (the sweep may have re-queued it and another holder reserved it since).

  KEYS[1] fleet:queue:<name>:processing       zset task id -> deadline

  ARGV[1] task id
  ARGV[2] lease: the deadline the caller's reserve or last extension returned
  ARGV[3] now, unix seconds
  ARGV[4] visibility seconds

  Returns the new lease ("%.17g" of the new deadline), or false when the lease was lost.
]]
local cur = redis.call("ZSCORE", KEYS[1], ARGV[1])
if not cur or tonumber(cur) ~= tonumber(ARGV[2]) then return false end
local deadline = tonumber(ARGV[3]) + math.max(1, tonumber(ARGV[4]))
-- never shorten a lease (a clock behind the one that reserved)
if deadline < tonumber(cur) then deadline = tonumber(cur) end
redis.call("ZADD", KEYS[1], "XX", deadline, ARGV[1])
return string.format("%.17g", deadline)
