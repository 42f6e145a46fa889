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

  Returns the body, or false when every list is empty. The body is registered under the
  task id of src/task-body.ts (Python's str(json.loads(body)["id"]), read from the id's own
  token so that integers beyond 2^53 and 1.0 keep their text); a body without a usable id is
  returned unregistered. The JSON reader below follows Python's json.loads, not cjson: NaN,
  Infinity and -Infinity are values, an integer of more than 4300 digits is refused, and the
  whole body must be UTF-8 and JSON for an id to count. Tested against a table shared with the
  TypeScript implementation and against the Python reference (test/task-ids.ts).
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

local byte, sub, find, format = string.byte, string.sub, string.find, string.format

-- Python decodes the body with bytes.decode("utf-8") (strict) before parsing it.
local function valid_utf8(s)
  local pos = 1
  while true do
    local i = find(s, "[\128-\255]", pos)
    if not i then return true end
    local c = byte(s, i)
    local need, lo, hi = 0, 128, 191
    if c >= 194 and c <= 223 then need = 1
    elseif c == 224 then need = 2; lo = 160
    elseif c >= 225 and c <= 236 then need = 2
    elseif c == 237 then need = 2; hi = 159
    elseif c == 238 or c == 239 then need = 2
    elseif c == 240 then need = 3; lo = 144
    elseif c >= 241 and c <= 243 then need = 3
    elseif c == 244 then need = 3; hi = 143
    else return false end
    local c2 = byte(s, i + 1)
    if not c2 or c2 < lo or c2 > hi then return false end
    for k = 2, need do
      local ck = byte(s, i + k)
      if not ck or ck < 128 or ck > 191 then return false end
    end
    pos = i + need + 1
  end
end

local function ws(s, pos)
  return find(s, "[^ \t\n\r]", pos) or (#s + 1)
end

-- A string token opening at pos: the index of its closing quote and whether it has escapes.
local function scan_string(s, pos)
  local p, escaped = pos + 1, false
  while true do
    local i = find(s, '[%z\1-\31"\\]', p)
    if not i then return nil end
    local c = byte(s, i)
    if c == 34 then return i, escaped end
    if c ~= 92 then return nil end
    escaped = true
    local e = byte(s, i + 1)
    if e == 117 then
      if not find(s, "^%x%x%x%x", i + 2) then return nil end
      p = i + 6
    elseif e == 34 or e == 92 or e == 47 or e == 98 or e == 102 or e == 110 or e == 114 or e == 116 then
      p = i + 2
    else
      return nil
    end
  end
end

local ESCAPES = { ['"'] = '"', ["\\"] = "\\", ["/"] = "/", b = "\b", f = "\f", n = "\n", r = "\r", t = "\t" }

local function utf8_char(cp)
  if cp < 128 then return string.char(cp) end
  if cp < 2048 then return string.char(192 + math.floor(cp / 64), 128 + cp % 64) end
  if cp < 65536 then return string.char(224 + math.floor(cp / 4096), 128 + math.floor(cp / 64) % 64, 128 + cp % 64) end
  return string.char(240 + math.floor(cp / 262144), 128 + math.floor(cp / 4096) % 64, 128 + math.floor(cp / 64) % 64, 128 + cp % 64)
end

-- The UTF-8 text of the (already scanned) string between a and b exclusive; nil when it holds
-- a lone surrogate, which Python's Redis client cannot encode.
local function decode_string(s, a, b)
  local out, p = {}, a
  while p < b do
    local i = find(s, "\\", p, true)
    if not i or i >= b then
      out[#out + 1] = sub(s, p, b - 1)
      break
    end
    out[#out + 1] = sub(s, p, i - 1)
    local e = sub(s, i + 1, i + 1)
    if e == "u" then
      local cp = tonumber(sub(s, i + 2, i + 5), 16)
      p = i + 6
      if cp >= 55296 and cp <= 56319 then
        local low = sub(s, p, p + 1) == "\\u" and tonumber(sub(s, p + 2, p + 5), 16)
        if not low or low < 56320 or low > 57343 then return nil end
        cp = 65536 + (cp - 55296) * 1024 + (low - 56320)
        p = p + 6
      elseif cp >= 56320 and cp <= 57343 then
        return nil
      end
      out[#out + 1] = utf8_char(cp)
    else
      out[#out + 1] = ESCAPES[e]
      p = i + 2
    end
  end
  return table.concat(out)
end

-- A number token at pos (Python's NUMBER_RE): its last index and whether it is a float.
local function scan_number(s, pos)
  local p = pos
  if byte(s, p) == 45 then p = p + 1 end
  local c = byte(s, p)
  if c == 48 then
    p = p + 1
  elseif c and c >= 49 and c <= 57 then
    local _, e = find(s, "^%d*", p + 1)
    p = e + 1
  else
    return nil
  end
  local int_digits = p - pos
  if byte(s, pos) == 45 then int_digits = int_digits - 1 end
  local is_float = false
  if byte(s, p) == 46 then
    local _, e = find(s, "^%d+", p + 1)
    if not e then return nil end
    p = e + 1
    is_float = true
  end
  c = byte(s, p)
  if c == 101 or c == 69 then
    local q = p + 1
    local sg = byte(s, q)
    if sg == 43 or sg == 45 then q = q + 1 end
    local _, e = find(s, "^%d+", q)
    if not e then return nil end
    p = e + 1
    is_float = true
  end
  -- Python's int() refuses more than 4300 digits, which fails json.loads
  if not is_float and int_digits > 4300 then return nil end
  return p - 1, is_float
end

-- Python's str(float): repr's shortest round-trip digits, exponent outside [-4, 16).
local function py_float_str(x)
  if x ~= x then return "nan" end
  if x == math.huge then return "inf" end
  if x == -math.huge then return "-inf" end
  if x == 0 then
    if 1 / x < 0 then return "-0.0" end
    return "0.0"
  end
  local m
  for p = 0, 16 do
    m = format("%." .. p .. "e", x)
    if tonumber(m) == x then break end
  end
  local sign, d1, rest, ex = string.match(m, "^(-?)(%d)%.?(%d*)e([-+]%d+)$")
  local digits = string.gsub(d1 .. rest, "0+$", "")
  local exp = tonumber(ex)
  local out
  if exp < -4 or exp >= 16 then
    out = sub(digits, 1, 1)
    if #digits > 1 then out = out .. "." .. sub(digits, 2) end
    local ae = math.abs(exp)
    out = out .. "e" .. (exp < 0 and "-" or "+") .. (ae < 10 and "0" or "") .. ae
  elseif exp < 0 then
    out = "0." .. string.rep("0", -exp - 1) .. digits
  elseif #digits <= exp + 1 then
    out = digits .. string.rep("0", exp + 1 - #digits) .. ".0"
  else
    out = sub(digits, 1, exp + 1) .. "." .. sub(digits, exp + 2)
  end
  return sign .. out
end

local function task_id(s)
  local pos = ws(s, 1)
  if byte(s, pos) ~= 123 then return nil end
  if not valid_utf8(s) then return nil end
  local n = #s
  local stack, depth = {}, 0
  local mode = "value"
  local is_id = false
  local id_kind, id_a, id_b
  while true do
    if mode == "value" then
      local c = byte(s, pos)
      local top_id = is_id and depth == 1
      is_id = false
      if c == 123 or c == 91 then
        if top_id then id_kind = "container" end
        depth = depth + 1
        stack[depth] = c
        pos = ws(s, pos + 1)
        local d = byte(s, pos)
        if c == 123 and d == 125 or c == 91 and d == 93 then
          depth = depth - 1
          pos = pos + 1
          mode = "after"
        elseif c == 123 then
          mode = "key"
        end
      else
        local e, kind
        if c == 34 then
          e = scan_string(s, pos)
          kind = "string"
        elseif c == 116 then
          if sub(s, pos, pos + 3) == "true" then e = pos + 3 end
          kind = "True"
        elseif c == 102 then
          if sub(s, pos, pos + 4) == "false" then e = pos + 4 end
          kind = "False"
        elseif c == 110 then
          if sub(s, pos, pos + 3) == "null" then e = pos + 3 end
          kind = "None"
        elseif c == 78 then
          if sub(s, pos, pos + 2) == "NaN" then e = pos + 2 end
          kind = "nan"
        elseif c == 73 then
          if sub(s, pos, pos + 7) == "Infinity" then e = pos + 7 end
          kind = "inf"
        elseif c == 45 and byte(s, pos + 1) == 73 then
          if sub(s, pos, pos + 8) == "-Infinity" then e = pos + 8 end
          kind = "-inf"
        else
          local is_float
          e, is_float = scan_number(s, pos)
          kind = is_float and "float" or "int"
        end
        if not e then return nil end
        if top_id then id_kind, id_a, id_b = kind, pos, e end
        pos = e + 1
        mode = "after"
      end
    elseif mode == "key" then
      if byte(s, pos) ~= 34 then return nil end
      local e, escaped = scan_string(s, pos)
      if not e then return nil end
      if depth == 1 then
        if escaped then is_id = decode_string(s, pos + 1, e) == "id" else is_id = (e == pos + 3 and sub(s, pos + 1, e - 1) == "id") end
      end
      pos = ws(s, e + 1)
      if byte(s, pos) ~= 58 then return nil end
      pos = ws(s, pos + 1)
      mode = "value"
    else
      pos = ws(s, pos)
      if depth == 0 then
        if pos <= n then return nil end
        break
      end
      local c = byte(s, pos)
      local open = stack[depth]
      if c == 44 then
        pos = ws(s, pos + 1)
        if open == 123 then mode = "key" else mode = "value" end
      elseif c == 125 and open == 123 or c == 93 and open == 91 then
        depth = depth - 1
        pos = pos + 1
      else
        return nil
      end
    end
  end
  if id_kind == nil or id_kind == "container" then return nil end
  if id_kind == "string" then
    local v = decode_string(s, id_a + 1, id_b)
    if v == "" then return nil end
    return v
  end
  local token = sub(s, id_a, id_b)
  if id_kind == "int" then
    if token == "-0" then return "0" end
    return token
  end
  if id_kind == "float" then return py_float_str(tonumber(token)) end
  return id_kind
end

local id = task_id(body)
if id then
  local deadline = now + math.max(1, visibility)
  redis.call("ZADD", KEYS[5], deadline, id)
  redis.call("HSET", KEYS[6], id, body)
end
return body
