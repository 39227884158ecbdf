-- Writes a tool's learned contract for the fleet, if nobody wrote one since it was read
-- (compare and set on the version) and the fleet did not start over since (the epoch).
-- Versions and epochs are random tokens, not counts: a Redis that restarted empty must
-- not hand out a version a replica saw before.
-- KEYS[1] the tool's hash. ARGV: version read, epoch read ('' for none), the state,
-- expiry (ms), the new version.
-- Answers {1, new version, epoch} when written, {0, version, epoch} as they are now.
local v = redis.call('HGET', KEYS[1], 'v') or ''
local e = redis.call('HGET', KEYS[1], 'e') or ''
if v ~= ARGV[1] or e ~= ARGV[2] then
  return {0, v, e}
end
redis.call('HSET', KEYS[1], 'v', ARGV[5], 's', ARGV[3])
redis.call('PEXPIRE', KEYS[1], ARGV[4])
return {1, ARGV[5], e}
