-- Admission of one attempt for the whole fleet: breaker first, then every quota
-- policy of the dependency, all in one atomic step with Redis's clock as the only
-- clock (replica clocks may be skewed; only TIME is trusted).
--
-- KEYS: 1 breaker hash, 2 probe token, 3 quota hash, 4 blocked-until,
--       5 in-flight attempts (sorted set: member = attempt id, score = admitted at)
-- ARGV: 1 token value, 2 deadline left (ms), 3 probe timeout (ms),
--       4 minimum attempt time (ms), 5 poll (ms) when a window's reset is unknown,
--       6 this attempt's id, 7 age (ms) past which an in-flight attempt is forgotten
--
-- Quota hash: field = policy name, value = "remaining:reset_at:limit:prev_reset"
-- (ms on the Redis clock; reset_at 0 = rolled over, new reset not advertised yet).
--
-- Returns {0, probe} go (probe 1 = this attempt is the fleet's one half-open probe),
-- {1, ms} circuit open, {2, ms} wait and ask again, {3, ms} quota gone past the deadline.
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local deadline = tonumber(ARGV[2])

local probe = 0
local open_until = tonumber(redis.call('HGET', KEYS[1], 'until') or '0')
if open_until > 0 then
  if now < open_until then
    return {1, open_until - now}
  end
  -- Half-open: one probe for the whole fleet; the token expires if its answer is lost.
  if not redis.call('SET', KEYS[2], ARGV[1], 'NX', 'PX', ARGV[3]) then
    local left = redis.call('PTTL', KEYS[2])
    if left < 1 then left = 1 end
    return {1, left}
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
  if wait + tonumber(ARGV[4]) > deadline then return {3, wait} end
  return {2, wait}
end
-- Every policy the call touches can serve it: only now take from each.
for _, p in ipairs(take) do
  redis.call('HSET', KEYS[3], p[1], p[2] .. ':' .. p[3] .. ':' .. p[4] .. ':' .. p[5])
end
redis.call('ZADD', KEYS[5], now, ARGV[6])
redis.call('PEXPIRE', KEYS[5], tonumber(ARGV[7]))
return {0, probe}
