-- Admission of one call of an agent for the whole fleet: its calls per window (the
-- generic cell rate algorithm, as the local quota) and its calls at once, in one
-- atomic step with Redis's clock as the only clock.
--
-- KEYS: 1 theoretical arrival time (µs on the Redis clock),
--       2 running calls (sorted set: member = call id, score = admitted at, µs)
-- ARGV: 1 interval between calls (µs; 0 = no call quota), 2 burst (µs),
--       3 calls at once at most (0 = no limit), 4 this call's id,
--       5 age (µs) past which a running call is forgotten (its replica died)
--
-- Returns {0, 0} go, {1, 0} too many calls at once, {2, µs} wait this long.
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local interval = tonumber(ARGV[1])
local limit = tonumber(ARGV[3])
local stale = tonumber(ARGV[5])

if limit > 0 then
  redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now - stale)
  if redis.call('ZCARD', KEYS[2]) >= limit then
    return {1, 0}
  end
end
if interval > 0 then
  local tat = tonumber(redis.call('GET', KEYS[1]) or '0')
  if tat < now then tat = now end
  local ahead = tat - now
  local burst = tonumber(ARGV[2])
  if ahead > burst then
    return {2, ahead - burst}
  end
  -- Kept while it matters, so 1,000 idle agents leave nothing behind.
  redis.call('SET', KEYS[1], string.format('%d', tat + interval), 'PX', math.floor((ahead + interval) / 1000) + 1000)
end
if limit > 0 then
  redis.call('ZADD', KEYS[2], now, ARGV[4])
  redis.call('PEXPIRE', KEYS[2], math.floor(stale / 1000))
end
return {0, 0}
