--[[
  Which keys exist with a type other than string. Read-only. MGET reads such a key as
  nil, like an absent one; workersGet asks here about its nil values only, so a page
  whose values are all present costs nothing more.

  KEYS[i]   any key

  Returns one integer per key: 1 when it exists and is not a string, else 0.
]]
local out = {}
for i = 1, #KEYS do
  local t = redis.call("TYPE", KEYS[i]).ok
  out[i] = (t ~= "none" and t ~= "string") and 1 or 0
end
return out
