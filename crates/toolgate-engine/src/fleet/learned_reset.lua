-- The tool's learned contract starts over for the whole fleet (a relearn): a new epoch,
-- no state; replicas that see the new epoch drop what they learned.
-- KEYS[1] the tool's hash. ARGV: expiry (ms), the new version, the new epoch.
-- Answers {version, epoch}.
redis.call('HSET', KEYS[1], 'v', ARGV[2], 'e', ARGV[3])
redis.call('HDEL', KEYS[1], 's')
redis.call('PEXPIRE', KEYS[1], ARGV[1])
return {ARGV[2], ARGV[3]}
