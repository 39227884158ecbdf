-- What one admitted attempt saw, for the whole fleet: the quota its reply advertised,
-- a throttle, the breaker outcome and the retry budget's request count. Redis's clock
-- is the only clock.
--
-- KEYS: 1 breaker hash, 2 probe token, 3 quota hash, 4 blocked-until,
--       5 in-flight attempts (sorted set), 6 budget key prefix (one hash per second:
--       q requests, r retries), 7 account hold ("end:told", ms), 8 account trial,
--       9 when the account's state last changed (ms: the hold began, or a trial passed),
--       10 when the current throttle began (ms)
-- ARGV: 1 outcome (0 success, 1 failure, 2 neutral, 3 unsent), 2 probe (0/1),
--       3 first attempt (0/1), 4 throttle (ms, 0 none), 5 consecutive failures to trip,
--       6 first open period (ms), 7 longest open period (ms), 8 reset slack (ms),
--       9 same-window tolerance (ms), 10 budget window (s), 11 max policies,
--       12 the attempt's id ('' when the fleet did not admit it),
--       13 the account (0 said nothing, 1 got past its check, 2 refused it),
--       14 a refusal's hold (ms), 15 when it said the account renews (ms, at least 14),
--       then per advertised policy: name, remaining, limit (0 unknown), reset after (ms)
--
-- Returns {requests, retries} of the fleet over the budget window.
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local sec = tonumber(t[1])
local outcome = tonumber(ARGV[1])
local probe = tonumber(ARGV[2])

-- When the fleet admitted the attempt (its in-flight score). A reply speaks of the time
-- its request was sent: one sent before a state began (a hold, a throttle, a breaker
-- closing) must not move that state, however late it arrives. An attempt the fleet did
-- not admit (decided locally while Redis was away, or forgotten as stale) has no known
-- sending and is taken as current.
local sent_at = nil
if ARGV[12] ~= '' then
  local score = redis.call('ZSCORE', KEYS[5], ARGV[12])
  if score then sent_at = tonumber(score) end
  redis.call('ZREM', KEYS[5], ARGV[12])
end
-- Times are whole ms: an attempt admitted in the millisecond a state began was admitted
-- before it (once it began, the fleet admits nothing until its end, or its one probe
-- or trial, sent later still).
local function sent_before(since)
  return sent_at ~= nil and since > 0 and sent_at <= since
end
local in_flight = redis.call('ZCARD', KEYS[5])

-- Quota adverts.
local slack = tonumber(ARGV[8])
local same = tonumber(ARGV[9])
local max_policies = tonumber(ARGV[11])
for i = 16, #ARGV, 4 do
  local name = ARGV[i]
  local adv = tonumber(ARGV[i + 1])
  local limit = tonumber(ARGV[i + 2])
  local after = tonumber(ARGV[i + 3])
  -- A reply whose reset had already passed when it arrived speaks of a window that is
  -- over: it says nothing about the current one.
  if after > 0 then
    local reset_at = now + after + slack
    local est = math.max(adv - in_flight, 0)
    local cur = redis.call('HGET', KEYS[3], name)
    local value = nil
    if cur then
      local rem, reset, _, prev = string.match(cur, '^(%d+):(%d+):(%d+):(%d+)$')
      rem = tonumber(rem or '0'); reset = tonumber(reset or '0'); prev = tonumber(prev or '0')
      if reset == 0 then
        -- Rolled over: a reply of the window before is stale; a new one is merged
        -- with what was taken since the rollover.
        if reset_at > prev + same then
          value = math.min(rem, est) .. ':' .. reset_at .. ':' .. limit .. ':' .. prev
        end
      elseif math.abs(reset_at - reset) <= same then
        -- Same window: the count only goes down (a higher one is an older reply).
        value = math.min(rem, est) .. ':' .. reset .. ':' .. limit .. ':' .. prev
      elseif reset_at > reset then
        value = est .. ':' .. reset_at .. ':' .. limit .. ':' .. reset
      end
    else
      if redis.call('HLEN', KEYS[3]) >= max_policies then
        -- An upstream inventing policy names must not grow the state: forget the one
        -- that resets first.
        local all = redis.call('HGETALL', KEYS[3])
        local victim, soonest = nil, nil
        for j = 1, #all, 2 do
          local r = tonumber(string.match(all[j + 1], '^%d+:(%d+):') or '0')
          if soonest == nil or r < soonest then victim, soonest = all[j], r end
        end
        if victim then redis.call('HDEL', KEYS[3], victim) end
      end
      value = est .. ':' .. reset_at .. ':' .. limit .. ':0'
    end
    if value then redis.call('HSET', KEYS[3], name, value) end
  end
end
redis.call('PEXPIRE', KEYS[3], 3600000)

local throttle = tonumber(ARGV[4])
if throttle > 0 then
  local until_ms = now + throttle
  local blocked = tonumber(redis.call('GET', KEYS[4]) or '0')
  local began = tonumber(redis.call('GET', KEYS[10]) or '0')
  local current = blocked > now
  if until_ms > blocked and not (current and sent_before(began)) then
    redis.call('SET', KEYS[4], until_ms, 'PX', throttle + 1000)
    if current then
      redis.call('PEXPIRE', KEYS[10], throttle + 1000)
    else
      redis.call('SET', KEYS[10], now, 'PX', throttle + 1000)
    end
  end
end

-- Breaker: consecutive failures across the fleet; only the probe decides a half-open one.
-- Failures of attempts sent while it was open or before it closed (`closed`: when the
-- probe that closed it was sent) say nothing of the dependency since, and count for
-- nothing.
local open_until = tonumber(redis.call('HGET', KEYS[1], 'until') or '0')
local closed_at = tonumber(redis.call('HGET', KEYS[1], 'closed') or '0')
if outcome == 1 then
  if probe == 1 or (open_until == 0 and not sent_before(closed_at)) then
    local fails = redis.call('HINCRBY', KEYS[1], 'fails', 1)
    if probe == 1 or fails >= tonumber(ARGV[5]) then
      local open = tonumber(redis.call('HGET', KEYS[1], 'open') or '0')
      if probe == 1 and open > 0 then
        open = math.min(open * 2, tonumber(ARGV[7]))
      else
        open = tonumber(ARGV[6])
      end
      redis.call('HSET', KEYS[1], 'until', now + open, 'open', open, 'fails', 0)
      redis.call('HSETNX', KEYS[1], 'since', now)
      redis.call('DEL', KEYS[2])
    end
  end
elseif outcome == 0 then
  if open_until == 0 then
    redis.call('HSET', KEYS[1], 'fails', 0)
  elseif probe == 1 then
    redis.call('DEL', KEYS[1])
    redis.call('DEL', KEYS[2])
    redis.call('HSET', KEYS[1], 'closed', sent_at or now)
  end
elseif probe == 1 then
  -- A probe that proved nothing frees the fleet's probe slot at once.
  redis.call('DEL', KEYS[2])
end
redis.call('PEXPIRE', KEYS[1], 3600000)

-- The account hold: a refusal holds every replica's calls back until its end; the
-- answer of the fleet's trial call that got past the account's check ends it (an
-- attempt sent before the refusal says nothing: it did not test the account since).
-- A refusal of an attempt sent before the account's state last changed (the hold
-- began, or a trial passed) is older news: it neither moves the hold's end nor frees
-- the trial nor holds an account a trial has since proved good.
-- The keys outlive the end by a day, so the one-trial rule holds however late the next
-- call comes, yet a hold nobody tries is forgotten.
local account = tonumber(ARGV[13])
local is_trial = ARGV[12] ~= '' and redis.call('GET', KEYS[8]) == ARGV[12]
local changed = tonumber(redis.call('GET', KEYS[9]) or '0')
if account == 2 and not sent_before(changed) then
  local hold = tonumber(ARGV[14])
  local told = math.max(tonumber(ARGV[15]), hold)
  local ends = tonumber(string.match(redis.call('GET', KEYS[7]) or '', '^(%d+):') or '0')
  redis.call('SET', KEYS[7], (now + hold) .. ':' .. (now + told), 'PX', hold + 86400000)
  if now < ends then
    redis.call('PEXPIRE', KEYS[9], hold + 86400000)
  else
    redis.call('SET', KEYS[9], now, 'PX', hold + 86400000)
  end
  redis.call('DEL', KEYS[8])
elseif account == 1 and is_trial then
  redis.call('DEL', KEYS[7], KEYS[8])
  redis.call('SET', KEYS[9], sent_at or now, 'PX', 86400000)
elseif is_trial then
  -- A trial that proved nothing (an outage, no answer, never sent) frees the slot.
  redis.call('DEL', KEYS[8])
end

-- Retry budget: requests (first attempts) per second, summed over the window.
local window = tonumber(ARGV[10])
if tonumber(ARGV[3]) == 1 and outcome ~= 3 then
  local k = KEYS[6] .. sec
  redis.call('HINCRBY', k, 'q', 1)
  redis.call('EXPIRE', k, window + 2)
end
local q, r = 0, 0
for s = sec - window + 1, sec do
  local v = redis.call('HMGET', KEYS[6] .. s, 'q', 'r')
  q = q + tonumber(v[1] or '0')
  r = r + tonumber(v[2] or '0')
end
return {q, r}
