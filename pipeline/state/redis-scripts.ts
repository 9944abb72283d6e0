import type { Redis } from 'ioredis';

/**
 * The Lua scripts behind RedisState's operations that one Redis command cannot do
 * atomically. Each takes exactly one key (already namespaced by the caller) and runs
 * atomically on the server. Scripts avoid returning Lua booleans or nil — whose
 * translation differs between RESP2 and RESP3 — and return integers, strings or arrays.
 */

/** {1, new value} after subtracting, or {0, current} when the counter was below `amount`. */
const DECR_IF_AT_LEAST = `
local raw = redis.call('GET', KEYS[1])
local current = 0
if raw then
  current = tonumber(raw)
  if current == nil then return redis.error_reply('ERR value is not an integer or out of range') end
end
local amount = tonumber(ARGV[1])
if current < amount then return {0, current} end
return {1, redis.call('DECRBY', KEYS[1], amount)}
`;

/** 1 when KEYS[1] held the token ARGV[1] and was deleted, else 0. */
const RELEASE_LOCK = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`;

/** 1 when KEYS[1] held the token ARGV[1] and now expires in ARGV[2] ms, else 0. */
const EXTEND_LOCK = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0
`;

/** Flat [member, score, member, score, ...] of what it removed, lowest score first. */
const ZPOP_DUE = `
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'WITHSCORES', 'LIMIT', 0, tonumber(ARGV[2]))
for i = 1, #due, 2 do redis.call('ZREM', KEYS[1], due[i]) end
return due
`;

/**
 * The token bucket of token-bucket.ts, step for step, on the Redis server's clock (TIME),
 * so every process sharing the bucket measures refill on one clock whatever its own says.
 * ARGV: capacity, refillPerSecond, cost, slack ms. Returns {allowed 0/1, tokens as a
 * string (fractions survive), retryAfterMs}.
 */
const TAKE_TOKEN = `
local capacity = tonumber(ARGV[1])
local rate = tonumber(ARGV[2])
local cost = tonumber(ARGV[3])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + tonumber(t[2]) / 1000
local stored = redis.call('HMGET', KEYS[1], 'tokens', 'ts')
local tokens = tonumber(stored[1])
local ts = tonumber(stored[2])
if tokens == nil or ts == nil then tokens = capacity; ts = now end
tokens = math.min(capacity, tokens + math.max(0, now - ts) * rate / 1000)
local allowed = 0
local retry = 0
if tokens >= cost then
  tokens = tokens - cost
  allowed = 1
else
  retry = math.ceil((cost - tokens) * 1000 / rate)
end
redis.call('HSET', KEYS[1], 'tokens', string.format('%.17g', tokens), 'ts', string.format('%.17g', now))
redis.call('PEXPIRE', KEYS[1], string.format('%d', math.ceil((capacity - tokens) * 1000 / rate) + tonumber(ARGV[4])))
return {allowed, string.format('%.17g', tokens), retry}
`;

export interface StateScripts {
  wdsDecrIfAtLeast(key: string, amount: number): Promise<[number, number]>;
  wdsReleaseLock(key: string, token: string): Promise<number>;
  wdsExtendLock(key: string, token: string, ttlMs: number): Promise<number>;
  wdsZpopDue(key: string, maxScore: string, limit: number): Promise<string[]>;
  wdsTakeToken(key: string, capacity: number, refillPerSecond: number, cost: number, slackMs: number): Promise<[number, string, number]>;
}

const SCRIPTS: Record<keyof StateScripts, string> = {
  wdsDecrIfAtLeast: DECR_IF_AT_LEAST,
  wdsReleaseLock: RELEASE_LOCK,
  wdsExtendLock: EXTEND_LOCK,
  wdsZpopDue: ZPOP_DUE,
  wdsTakeToken: TAKE_TOKEN,
};

/** Defines the scripts on `client` (EVALSHA, falling back to EVAL) and returns them typed. */
export function defineScripts(client: Redis): StateScripts {
  for (const [name, lua] of Object.entries(SCRIPTS)) client.defineCommand(name, { lua, numberOfKeys: 1 });
  return client as unknown as StateScripts;
}

