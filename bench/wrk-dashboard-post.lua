-- The wrk script of bench/run.ts for the dashboard's POSTs: a declaration filed from the
-- form (urlencoded) or uploaded as a CSV file (multipart), as a signed-in browser sends them.
-- args[1]: a file with one signed-in browser per line, fields separated by tabs: "Cookie: …" (the
--          session and CSRF cookies) and "_csrf: …" (the form's token, which goes in the body).
-- args[2]: "form" or "csv";  args[3]: the periods, comma-separated;  args[4]: lines per declaration;
-- args[5]: where line 0's quantity starts (run.ts gives each run its own range).
-- Every request is new content (line 0's quantity counts up). Filing from the dashboard goes through
-- a check page: the form and the upload read, validate and total every line, then answer
-- the check page with the pending declaration sealed in it; the person's named declaration on that
-- page files it. This measures the first step, the one that carries the lines.
-- response() counts the answers: 200 with the sealed pending declaration (the check page) is the
-- expected one; anything else (a 303 to the sign-in page, the form again with errors) is "other".
-- done() prints one line "WRK_RESULT {json}" that run.ts reads.

local browsers = {}
local kind, periods, lines = "form", {}, 4
local rest = ""
local sent, counter = 0, 0
checked, other = 0, 0
local threads = {}

-- As bench/load.ts writes its lines (MATERIAL_CODES, then materials outside the grid).
local MATERIALS = { "glass", "paper_cardboard", "plastic_pet_bottle_clear", "plastic_pe_pp_rigid", "plastic_ps", "plastic_pvc", "plastic_complex", "steel", "aluminium", "liquid_carton", "plastic_pet_tray", "other" }
local BOUNDARY = "----epr-bench-boundary-7MA4YWxkTrZu0gW"

function setup(thread)
  table.insert(threads, thread)
end

local function material(i)
  if i < #MATERIALS then return MATERIALS[i + 1] end
  return string.format("Bench material %04d", i + 1)
end

function init(args)
  for line in io.lines(args[1]) do
    local b = { headers = {} }
    for field in string.gmatch(line, "[^\t]+") do
      local name, value = string.match(field, "^([^:]+):%s*(.*)$")
      if name == "_csrf" then b.csrf = value else b.headers[name] = value end
    end
    browsers[#browsers + 1] = b
  end
  kind = args[2]
  for p in string.gmatch(args[3], "[^,]+") do periods[#periods + 1] = p end
  lines = tonumber(args[4])
  -- Lines 1… are the same in every request: made once.
  local parts = {}
  for i = 1, lines - 1 do
    if kind == "form" then
      parts[#parts + 1] = string.format("&stream=EMB&material=%s&quantity_uvc=%d", (string.gsub(material(i), " ", "+")), (i * 37) % 5000)
    else
      parts[#parts + 1] = string.format("EMB,%s,uvc,%d\r\n", material(i), (i * 37) % 5000)
    end
  end
  rest = table.concat(parts)
  counter = tonumber(args[5])
end

local function urlencode(s)
  return (string.gsub(s, "[^%w%-%._~]", function(c) return string.format("%%%02X", string.byte(c)) end))
end

function request()
  sent = sent + 1
  counter = counter + 1
  local b = browsers[(sent % #browsers) + 1]
  local period = periods[(math.floor(sent / #browsers) % #periods) + 1]
  local headers = {}
  for k, v in pairs(b.headers) do headers[k] = v end
  local body
  if kind == "form" then
    headers["Content-Type"] = "application/x-www-form-urlencoded"
    body = "_csrf=" .. urlencode(b.csrf) .. "&action=submit&period=" .. period ..
      "&stream=EMB&material=glass&quantity_uvc=" .. counter .. rest
  else
    headers["Content-Type"] = "multipart/form-data; boundary=" .. BOUNDARY
    body = "--" .. BOUNDARY .. "\r\nContent-Disposition: form-data; name=\"_csrf\"\r\n\r\n" .. b.csrf ..
      "\r\n--" .. BOUNDARY .. "\r\nContent-Disposition: form-data; name=\"period\"\r\n\r\n" .. period ..
      "\r\n--" .. BOUNDARY .. "\r\nContent-Disposition: form-data; name=\"file\"; filename=\"declaration.csv\"\r\nContent-Type: text/csv\r\n\r\n" ..
      "stream,material,unit,quantity\r\nEMB,glass,uvc," .. counter .. "\r\n" .. rest ..
      "\r\n--" .. BOUNDARY .. "--\r\n"
  end
  return wrk.format("POST", wrk.path, headers, body)
end

function response(status, _, body)
  if status == 200 and body ~= nil and string.find(body, 'name="seal"', 1, true) then
    checked = checked + 1
  else
    other = other + 1
  end
end

function done(summary, latency, _)
  local c, o = 0, 0
  for _, t in ipairs(threads) do
    c = c + t:get("checked")
    o = o + t:get("other")
  end
  local e = summary.errors
  io.write(string.format(
    'WRK_RESULT {"requests":%d,"duration_us":%d,"errors":{"connect":%d,"read":%d,"write":%d,"status":%d,"timeout":%d},' ..
      '"p50_us":%d,"p90_us":%d,"p99_us":%d,"max_us":%d,"checked":%d,"other":%d}\n',
    summary.requests, summary.duration, e.connect, e.read, e.write, e.status, e.timeout,
    latency:percentile(50), latency:percentile(90), latency:percentile(99), latency.max, c, o))
end
