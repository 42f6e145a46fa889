--[[
  Reserve one task: drain due retries (a bounded chunk), pop by priority, register the
  reservation. One script so two reservers can neither duplicate a due retry nor lose a
  popped body.

  KEYS[1] fleet:queue:<name>:scheduled        zset body -> ready_at
  KEYS[2] fleet:queue:<name>:high             list
  KEYS[3] fleet:queue:<name>                  list (normal)
  KEYS[4] fleet:queue:<name>:low              list
  KEYS[5] fleet:queue:<name>:processing       zset task id -> deadline
  KEYS[6] fleet:queue:<name>:processing:body  hash task id -> body

  ARGV[1] now, unix seconds (the client's clock, as Python's time.time())
  ARGV[2] visibility seconds
  ARGV[3] a provisional task id (random, fresh per call), used only for a body over ARGV[4]
  ARGV[4] the largest body read here for its id, in bytes (src/queue-bounds.ts)
  ARGV[5] at most this many due retries moved per call
  ARGV[6] ... and about this many bytes of them (the chunk stops once it is reached)

  Due retries. At most ARGV[5] of them (and about ARGV[6] bytes), soonest first, are moved
  from :scheduled to the normal list's tail, in slices of 16 (ZRANGEBYSCORE ... LIMIT 0 16,
  then ZREMRANGEBYRANK of exactly those: the lowest-scored members are the due ones). The
  rest stay due and move on the following reserves, still in order; each body is moved once.
  A million due retries therefore never make one long script.

  Returns {body, lease} or {body, lease, "1"}, or false when every list is empty. The lease is
  the registered deadline as text ("%.17g", so it reads back as the very same double), which
  the holder hands to extend/ack/nack/fail to act only on its own reservation; it is "" when
  the body was left unregistered.

  A body of at most ARGV[4] bytes is registered under the task id of src/task-body.ts
  (Python's str(json.loads(body)["id"]), read from the id's own token so that integers beyond
  2^53 and 1.0 keep their text); a body without a usable id is returned unregistered. The
  JSON reader below follows Python's json.loads, not cjson: NaN, Infinity and -Infinity are
  values, an integer of more than 4300 digits is refused, and the whole body must be UTF-8 and
  JSON for an id to count. Tested against a table shared with the TypeScript implementation
  and against the Python reference (test/task-ids.ts).

  A larger body is not read here at all: it is registered under the provisional id ARGV[3]
  (with its real deadline) and returned with "1"; the caller finds the real id with the
  TypeScript reader (the same rule) and re-keys the registration with reserve-settle-2.lua,
  or drops it for a body without a usable id. If the caller dies in between, the provisional
  reservation expires like any other and a sweep (ours or Python's: both requeue whatever id
  has an expired deadline and a body) puts the body back: nothing lost, nothing duplicated.

  Cost: a body is read in full only up to ARGV[4] bytes, about a microsecond per JSON token
  (8 KiB of the worst shapes, a number or an escaped key every two bytes: 2-4 ms measured on
  a loaded two-core machine; 1.2 MB took 200-550 ms before this bound), plus a C-speed pass per
  UTF-8 sequence length present.
]]
local now = tonumber(ARGV[1])
local visibility = tonumber(ARGV[2])

local provisional = ARGV[3]
local parse_max = tonumber(ARGV[4])
local drain_max = tonumber(ARGV[5])
local drain_bytes = tonumber(ARGV[6])

local moved, moved_bytes = 0, 0
while moved < drain_max and moved_bytes < drain_bytes do
  local want = math.min(16, drain_max - moved)
  local due = redis.call("ZRANGEBYSCORE", KEYS[1], "-inf", now, "LIMIT", 0, want)
  if #due == 0 then break end
  redis.call("ZREMRANGEBYRANK", KEYS[1], 0, #due - 1)
  redis.call("RPUSH", KEYS[3], unpack(due))
  moved = moved + #due
  for i = 1, #due do moved_bytes = moved_bytes + #due[i] end
  if #due < want then break end
end

local body = redis.call("LPOP", KEYS[2])
if not body then body = redis.call("LPOP", KEYS[3]) end
if not body then body = redis.call("LPOP", KEYS[4]) end
if not body then return false end

local deadline = now + math.max(1, visibility)
if #body > parse_max then
  redis.call("ZADD", KEYS[5], deadline, provisional)
  redis.call("HSET", KEYS[6], provisional, body)
  return {body, string.format("%.17g", deadline), "1"}
end

local byte, sub, find, format, gsub = string.byte, string.sub, string.find, string.format, string.gsub

-- Python decodes the body with bytes.decode("utf-8") (strict) before parsing it. Every valid
-- sequence is replaced by an ASCII byte (C-speed gsub, one pass per lead-byte range, run only
-- when such a lead byte occurs; a lead byte is never a continuation byte, so no pass can match
-- across another's sequence): any byte >= 128 left over was not part of valid UTF-8.
local UTF8_PASSES = {
  { "[\194-\223]", "[\194-\223][\128-\191]" },
  { "\224", "\224[\160-\191][\128-\191]" },
  { "[\225-\236\238\239]", "[\225-\236\238\239][\128-\191][\128-\191]" },
  { "\237", "\237[\128-\159][\128-\191]" },
  { "\240", "\240[\144-\191][\128-\191][\128-\191]" },
  { "[\241-\243]", "[\241-\243][\128-\191][\128-\191][\128-\191]" },
  { "\244", "\244[\128-\143][\128-\191][\128-\191]" },
}
local function valid_utf8(s)
  local t = s
  for _, pass in ipairs(UTF8_PASSES) do
    if find(t, pass[1]) then t = gsub(t, pass[2], "a") end
  end
  return not find(t, "[\128-\255]")
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

-- A number token at pos (Python's NUMBER_RE): its last index and whether it is a float; nil
-- when it is not one, or is an integer of more than 4300 digits (Python's int() refuses it,
-- which fails json.loads).
local function scan_number(s, pos, c)
  local _, e = find(s, "^-?%d+", pos)
  if not e then return nil end
  local d0 = pos
  if c == 45 then d0 = pos + 1 end
  if e > d0 and byte(s, d0) == 48 then return nil end
  local nx = byte(s, e + 1)
  if nx ~= 46 and nx ~= 101 and nx ~= 69 then
    if e - d0 >= 4300 then return nil end
    return e, false
  end
  if nx == 46 then
    local _, f = find(s, "^%d+", e + 2)
    if not f then return nil end
    e = f
    nx = byte(s, e + 1)
  end
  if nx == 101 or nx == 69 then
    local _, f = find(s, "^[-+]?%d+", e + 2)
    if not f then return nil end
    e = f
  end
  return e, true
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
  local digits = gsub(d1 .. rest, "0+$", "")
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

local LITERALS = { [116] = "true", [102] = "false", [110] = "null", [78] = "NaN", [73] = "Infinity" }
local LITERAL_IDS = { ["true"] = "True", ["false"] = "False", ["null"] = "None", NaN = "nan", Infinity = "inf", ["-Infinity"] = "-inf" }

local function task_id(s)
  local pos = find(s, "[^ \t\n\r]")
  if not pos or byte(s, pos) ~= 123 then return nil end
  if find(s, "[\128-\255]") and not valid_utf8(s) then return nil end
  local stack, depth = {}, 0
  local in_object = false      -- whether the innermost open container is an object
  local expect_key = false
  local is_id = false          -- the value about to be read is a top-level "id"
  local id_kind, id_a, id_b
  while true do
    local e
    if expect_key then
      if byte(s, pos) ~= 34 then return nil end
      local q, escaped = scan_string(s, pos)
      if not q then return nil end
      if depth == 1 then
        if escaped then is_id = decode_string(s, pos + 1, q) == "id" else is_id = (q == pos + 3 and sub(s, pos + 1, q - 1) == "id") end
      end
      local _, colon = find(s, "^[ \t\n\r]*:[ \t\n\r]*", q + 1)
      if not colon then return nil end
      pos = colon + 1
      expect_key = false
    else
      -- a value at pos
      local c = byte(s, pos)
      local kind
      if c == 34 then
        e = scan_string(s, pos)
        kind = "string"
      elseif c == 123 or c == 91 then
        if is_id and depth == 1 then id_kind = "container" end
        is_id = false
        depth = depth + 1
        stack[depth] = c
        in_object = c == 123
        local _, close = find(s, in_object and "^[ \t\n\r]*}" or "^[ \t\n\r]*%]", pos + 1)
        if close then
          -- an empty container is a complete value
          depth = depth - 1
          in_object = stack[depth] == 123
          e = close
        else
          pos = ws(s, pos + 1)
          expect_key = in_object
        end
      elseif c == 45 and byte(s, pos + 1) == 73 then
        if sub(s, pos, pos + 8) == "-Infinity" then e = pos + 8 end
        kind = "literal"
      elseif c == 45 or (c and c >= 48 and c <= 57) then
        local is_float
        e, is_float = scan_number(s, pos, c)
        kind = is_float and "float" or "int"
      else
        local lit = LITERALS[c]
        if lit and sub(s, pos, pos + #lit - 1) == lit then e = pos + #lit - 1 end
        kind = "literal"
      end
      if kind then
        if not e then return nil end
        if is_id and depth == 1 then id_kind, id_a, id_b = kind, pos, e end
        is_id = false
      end
    end
    if e then
      -- after a complete value: a comma, or the end of one or more containers
      while true do
        local _, p, ch = find(s, "^[ \t\n\r]*([^ \t\n\r])", e + 1)
        if depth == 0 then
          if p then return nil end
          -- the top-level object is complete
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
          return LITERAL_IDS[token]
        end
        if ch == "," then
          pos = ws(s, p + 1)
          expect_key = in_object
          break
        elseif (ch == "}" and in_object) or (ch == "]" and not in_object) then
          depth = depth - 1
          in_object = stack[depth] == 123
          e = p
        else
          return nil
        end
      end
    end
  end
end

local id = task_id(body)
if id then
  redis.call("ZADD", KEYS[5], deadline, id)
  redis.call("HSET", KEYS[6], id, body)
  return {body, string.format("%.17g", deadline)}
end
return {body, ""}
