--[[
  Reserve one task: drain due retries, pop by priority, register the reservation.
  One script so two reservers can neither duplicate a due retry nor lose a popped body.

  KEYS[1] fleet:queue:<name>:scheduled        zset body -> ready_at
  KEYS[2] fleet:queue:<name>:high             list
  KEYS[3] fleet:queue:<name>                  list (normal)
  KEYS[4] fleet:queue:<name>:low              list
  KEYS[5] fleet:queue:<name>:processing       zset task id -> deadline
  KEYS[6] fleet:queue:<name>:processing:body  hash task id -> body

  ARGV[1] now, unix seconds (the client's clock, as Python's time.time())
  ARGV[2] visibility seconds

  Returns {body, lease}, or false when every list is empty. The lease is the registered
  deadline as text ("%.17g", so it reads back as the very same double), which the holder
  hands to extend/ack/nack/fail to act only on its own reservation. A body without a usable
  id (not a JSON object, no "id", null or empty id) is returned unregistered, lease "".
]]
local now = tonumber(ARGV[1])
local visibility = tonumber(ARGV[2])

local due = redis.call("ZRANGEBYSCORE", KEYS[1], "-inf", now)
if #due > 0 then
  redis.call("ZREMRANGEBYSCORE", KEYS[1], "-inf", now)
  -- unpack() is bounded by Lua's C stack: push in slices
  for i = 1, #due, 1000 do
    redis.call("RPUSH", KEYS[3], unpack(due, i, math.min(i + 999, #due)))
  end
end

local body = redis.call("LPOP", KEYS[2])
if not body then body = redis.call("LPOP", KEYS[3]) end
if not body then body = redis.call("LPOP", KEYS[4]) end
if not body then return false end

-- Python registers str(envelope["id"]); cjson holds every number as a double, so
-- integers are printed without a fraction and other numbers in their shortest form.
local function number_text(n)
  if n == math.floor(n) and math.abs(n) < 9007199254740992 then
    return string.format("%d", n)
  end
  for digits = 15, 17 do
    local s = string.format("%." .. digits .. "g", n)
    if tonumber(s) == n then return s end
  end
  return tostring(n)
end

local function task_id(raw)
  local ok, env = pcall(cjson.decode, raw)
  if not ok or type(env) ~= "table" then return nil end
  local id = env["id"]
  local t = type(id)
  if t == "string" then
    if id == "" then return nil end
    return id
  elseif t == "number" then
    return number_text(id)
  elseif t == "boolean" then
    if id then return "True" end
    return "False"
  end
  return nil
end

local id = task_id(body)
if id then
  local deadline = now + math.max(1, visibility)
  redis.call("ZADD", KEYS[5], deadline, id)
  redis.call("HSET", KEYS[6], id, body)
  return {body, string.format("%.17g", deadline)}
end
return {body, ""}
