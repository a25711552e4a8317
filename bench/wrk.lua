-- The wrk script of bench/run.ts (yardstick cases): GET wrk.path, rotating over request header sets.
-- args[1]: a file with one header set per line, fields separated by tabs ("Name: value\tName: value");
-- an empty line is a request with no extra header. The requests are built once, in init.
-- With WRK_EVERY_ANSWER=1 in its environment, response() counts every answer other than 200 ("other":
-- a 304, a 429, a redirect are not what the case measures). Without it there is no response(): wrk
-- then hands no answer's headers and body to Lua (it costs wrk 5-10 us an answer of 20 headers and
-- 12 KB, 1-2 us one of the minimal app's), and counts answers of status 400 or more itself.
-- done() prints one line "WRK_RESULT {json}" that run.ts reads.

local prepared = {}
local sent = 0
other = 0
local threads = {}

function setup(thread)
  table.insert(threads, thread)
end

function init(args)
  for line in io.lines(args[1]) do
    local headers = {}
    for field in string.gmatch(line, "[^\t]+") do
      local name, value = string.match(field, "^([^:]+):%s*(.*)$")
      headers[name] = value
    end
    prepared[#prepared + 1] = wrk.format("GET", wrk.path, headers)
  end
end

function request()
  sent = sent + 1
  return prepared[(sent % #prepared) + 1]
end

if os.getenv("WRK_EVERY_ANSWER") == "1" then
  function response(status)
    if status ~= 200 then other = other + 1 end
  end
end

function done(summary, latency, _)
  local o = 0
  for _, t in ipairs(threads) do o = o + t:get("other") end
  local e = summary.errors
  io.write(string.format(
    'WRK_RESULT {"requests":%d,"duration_us":%d,"errors":{"connect":%d,"read":%d,"write":%d,"status":%d,"timeout":%d},' ..
      '"p50_us":%d,"p90_us":%d,"p99_us":%d,"max_us":%d,"other":%d}\n',
    summary.requests, summary.duration, e.connect, e.read, e.write, e.status, e.timeout,
    latency:percentile(50), latency:percentile(90), latency:percentile(99), latency.max, o))
end
