-- What the fleet knows of one dependency right now, for `dependency_health`, the
-- console and `/admin/health` on any replica — one that sent no call lately included.
-- Reads only: a report never takes quota, a probe or a trial.
--
-- KEYS: 1 breaker hash, 2 account hold ("end:told", ms), 3 quota hash, 4 blocked-until
--
-- Returns {{open, down, held, blocked}, {policy names}, {remaining, limit, reset, ...}}:
-- open: ms until the breaker's next probe (-1 half-open: past its open period, 0 closed);
-- down: ms since the breaker first opened (0 when closed); held: ms until a call may pass
-- the account hold (0 when none); blocked: ms until a stated throttle's end (0 none);
-- then per policy its remaining, its limit (0 unknown) and ms until its reset (-1 unknown).
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)

local open, down = 0, 0
local until_ms = tonumber(redis.call('HGET', KEYS[1], 'until') or '0')
if until_ms > 0 then
  if now < until_ms then open = until_ms - now else open = -1 end
  local since = tonumber(redis.call('HGET', KEYS[1], 'since') or '0')
  if since > 0 and since < now then down = now - since end
end

local held = 0
local hold = redis.call('GET', KEYS[2])
if hold then
  local ends, told = string.match(hold, '^(%d+):(%d+)$')
  ends = tonumber(ends or '0'); told = tonumber(told or '0')
  if now < ends then held = math.max(ends, told) - now end
end

local blocked = tonumber(redis.call('GET', KEYS[4]) or '0') - now
if blocked < 0 then blocked = 0 end

local names, counts = {}, {}
local all = redis.call('HGETALL', KEYS[3])
for i = 1, #all, 2 do
  local rem, reset, limit = string.match(all[i + 1], '^(%d+):(%d+):(%d+):%d+$')
  if rem then
    reset = tonumber(reset)
    local left = -1
    if reset > now then
      left = reset - now
    elseif reset > 0 then
      -- Past its reset the window is new: the full limit is what the next call meets.
      left = 0
      if tonumber(limit) > 0 then rem = limit end
    end
    table.insert(names, all[i])
    table.insert(counts, tonumber(rem))
    table.insert(counts, tonumber(limit))
    table.insert(counts, left)
  end
end
return {{open, down, held, blocked}, names, counts}
