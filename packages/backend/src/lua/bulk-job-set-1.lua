--[[
  Changes a bulk job's fields, only while its state is the one expected (a cancel must not
  undo a finish, a finish must not undo a cancel, a take-over must not steal a finished job).

  KEYS[1] fleet:console:bulk:job:<id>  hash

  ARGV[1] the state expected ("" for any existing job)
  ARGV[2] seconds to keep the record from now on (0: no change)
  ARGV[3..] field, value, field, value...

  Returns 1 when written, 0 when the job is missing or in another state.
]]
local state = redis.call("HGET", KEYS[1], "state")
if not state or (ARGV[1] ~= "" and state ~= ARGV[1]) then return 0 end
if #ARGV >= 4 then redis.call("HSET", KEYS[1], unpack(ARGV, 3)) end
if tonumber(ARGV[2]) > 0 then redis.call("EXPIRE", KEYS[1], tonumber(ARGV[2])) end
return 1
