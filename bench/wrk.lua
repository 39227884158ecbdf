-- wrk script shared by every row of bench/run, configured through the environment:
--   WRK_METHOD   GET (default) or POST
--   WRK_BODY     request body; "{id}" is replaced by a per-request unique JSON-RPC id
--                and "{n}" by a per-request unique number (distinct argument values)
--   WRK_HEADERS  extra headers, "name: value|name: value"
--   WRK_EXPECT   a substring every 200 response body must contain (e.g. '"isError":false');
--                a 200 without it counts as "bad" (an MCP error inside a 200, an isError result)
--   WRK_CALLS    a thread ends its run once it has this many answers and creates the file
--                WRK_DONE_FILE names, on which the caller interrupts wrk (SIGINT), which
--                otherwise waits out its -d: a run of a fixed number of calls
-- done() prints one machine-readable line: "RESULT key=value ...".
-- Every row uses this script (response() hook included), so the client's own cost is
-- the same whether it talks to nginx or to toolgate.

local method = os.getenv("WRK_METHOD") or "GET"
local body = os.getenv("WRK_BODY")
local expect = os.getenv("WRK_EXPECT")
if expect == "" then expect = nil end
local calls_wanted = tonumber(os.getenv("WRK_CALLS") or "")
local done_file = os.getenv("WRK_DONE_FILE")
local dynamic = body ~= nil and (body:find("{id}", 1, true) or body:find("{n}", 1, true))

wrk.method = method
if body and body ~= "" then wrk.body = body end
for h in string.gmatch(os.getenv("WRK_HEADERS") or "", "[^|]+") do
  local k, v = h:match("^%s*(.-)%s*:%s*(.-)%s*$")
  if k and k ~= "" then wrk.headers[k] = v end
end

local threads = {}
local next_tid = 0

function setup(thread)
  next_tid = next_tid + 1
  thread:set("tid", next_tid)
  table.insert(threads, thread)
end

function init(args)
  answered = 0
  nonok = 0
  bad = 0
  seq = 0
  first_bad = ""
end

if dynamic then
  function request()
    seq = seq + 1
    local n = tostring(tid * 100000000 + seq)
    local b = body:gsub("{id}", n):gsub("{n}", n)
    return wrk.format(nil, nil, nil, b)
  end
end

function response(status, headers, resp)
  answered = answered + 1
  if calls_wanted and answered == calls_wanted then
    wrk.thread:stop()
    if done_file then
      local f = io.open(done_file, "w")
      if f then f:close() end
    end
  end
  if status ~= 200 then
    nonok = nonok + 1
    if first_bad == "" then first_bad = status .. " " .. string.sub(resp or "", 1, 300) end
  elseif expect and not string.find(resp, expect, 1, true) then
    bad = bad + 1
    if first_bad == "" then first_bad = string.sub(resp or "", 1, 300) end
  end
end

function done(summary, latency, requests)
  local n_nonok, n_bad, sample, sent = 0, 0, "", 0
  for _, t in ipairs(threads) do
    n_nonok = n_nonok + t:get("nonok")
    n_bad = n_bad + t:get("bad")
    sent = sent + (t:get("seq") or 0)
    local fb = t:get("first_bad")
    if sample == "" and fb and fb ~= "" then sample = fb end
  end
  local e = summary.errors
  io.write(string.format(
    "RESULT requests=%d duration_us=%d bytes=%d p50_us=%d p99_us=%d mean_us=%.1f nonok=%d bad=%d sockerr=%d sent=%d\n",
    summary.requests, summary.duration, summary.bytes,
    latency:percentile(50), latency:percentile(99), latency.mean,
    n_nonok, n_bad, e.connect + e.read + e.write + e.timeout, sent))
  if sample ~= "" then
    io.write("FIRSTBAD " .. sample:gsub("[\r\n]", " ") .. "\n")
  end
end
