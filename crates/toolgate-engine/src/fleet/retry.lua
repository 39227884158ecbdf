-- One retry withdrawn from the fleet's budget (the replica decided from the fleet's
-- last totals; this makes the withdrawal count for every replica).
--
-- KEYS: 1 budget key prefix. ARGV: 1 budget window (s).
local t = redis.call('TIME')
local sec = tonumber(t[1])
local window = tonumber(ARGV[1])
local k = KEYS[1] .. sec
redis.call('HINCRBY', k, 'r', 1)
redis.call('EXPIRE', k, window + 2)
return 1
