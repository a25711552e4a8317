-- The wrk script of bench/run.ts (yardstick cases): GET wrk.path, rotating over request header sets.
-- args[1]: a file with one header set per line, fields separated by tabs ("Name: value\tName: value");
-- an empty line is a request with no extra header. The requests are built once, in init.
-- done() prints one line "WRK_RESULT {json}" that run.ts reads.

local prepared = {}
local sent = 0

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

function done(summary, latency, _)
  local e = summary.errors
  io.write(string.format(
    'WRK_RESULT {"requests":%d,"duration_us":%d,"errors":{"connect":%d,"read":%d,"write":%d,"status":%d,"timeout":%d},' ..
      '"p50_us":%d,"p90_us":%d,"p99_us":%d,"max_us":%d}\n',
    summary.requests, summary.duration, e.connect, e.read, e.write, e.status, e.timeout,
    latency:percentile(50), latency:percentile(90), latency:percentile(99), latency.max))
end
