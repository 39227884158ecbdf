-- Admission of one attempt for the whole fleet: the account hold first, then the
-- breaker, then every quota policy of the dependency, all in one atomic step with
-- Redis's clock as the only clock (replica clocks may be skewed; only TIME is trusted).
--
-- KEYS: 1 breaker hash, 2 probe token, 3 quota hash, 4 blocked-until,
--       5 in-flight attempts (sorted set: member = attempt id, score = admitted at),
--       6 account hold ("end:told", ms), 7 account trial (the trial attempt's id)
-- ARGV: 1 token value, 2 deadline left (ms), 3 probe timeout (ms),
--       4 minimum attempt time (ms), 5 poll (ms) when a window's reset is unknown,
--       6 this attempt's id, 7 age (ms) past which an in-flight attempt is forgotten,
--       8 how long the account trial is this attempt's if its answer never comes (ms)
--
-- Quota hash: field = policy name, value = "remaining:reset_at:limit:prev_reset"
-- (ms on the Redis clock; reset_at 0 = rolled over, new reset not advertised yet).
--
-- Returns {0, probe, 0} go (probe 1 = this attempt is the fleet's one half-open probe),
-- {1, ms, 0} circuit open, {2, ms, 0} wait and ask again, {3, ms, 0} quota gone past the
-- deadline, {4, ms, hold ms} account held (ms: until a call may pass, as told; hold
-- ms: until the hold's end, 0 while the trial call is out).
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local deadline = tonumber(ARGV[2])

-- The account hold: until its end nothing goes; then one trial call for the fleet,
-- whose token expires if its answer is lost (so a hold never lasts for good).
local trial = 0
local held = redis.call('GET', KEYS[6])
if held then
  local ends, told = string.match(held, '^(%d+):(%d+)$')
  ends = tonumber(ends or '0'); told = tonumber(told or '0')
  if now < ends then
    return {4, math.max(told, ends) - now, ends - now}
  end
  if not redis.call('SET', KEYS[7], ARGV[6], 'NX', 'PX', ARGV[8]) then
    local left = redis.call('PTTL', KEYS[7])
    if left < 1 then left = 1 end
    -- Told to wait for the trial's answer, but not held to it: the trial may end
    -- the hold at once.
    return {4, math.max(told - now, left), 0}
  end
  trial = 1
end
-- A refusal below gives the trial back: the trial is for an attempt that goes.
local function refuse(code, ms)
  if trial == 1 then redis.call('DEL', KEYS[7]) end
  return {code, ms, 0}
end

local probe = 0
local open_until = tonumber(redis.call('HGET', KEYS[1], 'until') or '0')
if open_until > 0 then
  if now < open_until then
    return refuse(1, open_until - now)
  end
  -- Half-open: one probe for the whole fleet; the token expires if its answer is lost.
  if not redis.call('SET', KEYS[2], ARGV[1], 'NX', 'PX', ARGV[3]) then
    local left = redis.call('PTTL', KEYS[2])
    if left < 1 then left = 1 end
    return refuse(1, left)
  end
  probe = 1
end

local wait = 0
local blocked = tonumber(redis.call('GET', KEYS[4]) or '0')
if blocked > now then wait = blocked - now end
-- Attempts of a replica that died in flight are forgotten after a while, so they
-- cannot discount every later advert for good.
redis.call('ZREMRANGEBYSCORE', KEYS[5], '-inf', now - tonumber(ARGV[7]))
local in_flight = redis.call('ZCARD', KEYS[5])

local all = redis.call('HGETALL', KEYS[3])
local take = {}
for i = 1, #all, 2 do
  local rem, reset, limit, prev = string.match(all[i + 1], '^(%d+):(%d+):(%d+):(%d+)$')
  if rem then
    rem = tonumber(rem); reset = tonumber(reset); limit = tonumber(limit); prev = tonumber(prev)
    if reset > 0 and reset <= now then
      -- Past the (slackened) reset the window is new: the full limit, less what is in flight.
      if limit > 0 then
        rem = math.max(limit - in_flight, 0)
        prev = reset
        reset = 0
        redis.call('HSET', KEYS[3], all[i], rem .. ':0:' .. limit .. ':' .. prev)
      else
        redis.call('HDEL', KEYS[3], all[i])
        rem = nil
      end
    end
    if rem then
      local reserve
      if limit > 0 then
        reserve = math.min(math.max(math.floor(limit * 0.02), 1), limit - 1)
      else
        reserve = math.min(1, math.max(rem - 1, 0))
      end
      if rem <= reserve then
        if reset > 0 then
          wait = math.max(wait, reset - now)
        elseif in_flight > 0 then
          wait = math.max(wait, tonumber(ARGV[5]))
        else
          -- Nothing in flight will tell the new window: forget the policy.
          redis.call('HDEL', KEYS[3], all[i])
        end
      else
        take[#take + 1] = {all[i], rem - 1, reset, limit, prev}
      end
    end
  end
end

if wait > 0 then
  if probe == 1 then redis.call('DEL', KEYS[2]) end
  if wait + tonumber(ARGV[4]) > deadline then return refuse(3, wait) end
  return refuse(2, wait)
end
-- Every policy the call touches can serve it: only now take from each.
for _, p in ipairs(take) do
  redis.call('HSET', KEYS[3], p[1], p[2] .. ':' .. p[3] .. ':' .. p[4] .. ':' .. p[5])
end
redis.call('ZADD', KEYS[5], now, ARGV[6])
redis.call('PEXPIRE', KEYS[5], tonumber(ARGV[7]))
return {0, probe, 0}
