import type { Redis } from 'ioredis';

/**
 * The Lua scripts behind RedisState's operations that one Redis command cannot do
 * atomically. Each takes its keys already namespaced by the caller (one, except the work
 * queue's, which take the seven WorkQueueKeys in QUEUE_KEY_ORDER, all of one hash slot on a
 * Redis Cluster: the caller gives them one hash tag) and runs atomically on the
 * server. Scripts avoid returning Lua booleans or nil — whose
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

/** KEYS[1..7] of the work queue scripts: WorkQueueKeys in this order. */
export const QUEUE_KEY_ORDER = ['seen', 'queue', 'counters', 'claims', 'claimedAt', 'settled', 'ranks'] as const;

/**
 * ARGV: limit, then (dedupe key, item, rank) per offer, taken in order: each offer's code is 0
 * seen before (its rank lowered when smaller), 1 added, 2 seen now but full, which ends the
 * script. Returns the codes of the offers looked at.
 */
const QUEUE_ADMIT_MANY = `
local limit = tonumber(ARGV[1])
local total = tonumber(redis.call('HGET', KEYS[3], 'total') or '0')
local out = {}
for i = 2, #ARGV, 3 do
  local key = ARGV[i]
  local rank = tonumber(ARGV[i + 2])
  if redis.call('SADD', KEYS[1], key) == 0 then
    local held = tonumber(redis.call('HGET', KEYS[7], key))
    if held ~= nil and rank < held then redis.call('HSET', KEYS[7], key, ARGV[i + 2]) end
    out[#out + 1] = 0
  elseif total >= limit then
    out[#out + 1] = 2
    return out
  else
    total = redis.call('HINCRBY', KEYS[3], 'total', 1)
    redis.call('RPUSH', KEYS[2], ARGV[i + 1])
    redis.call('HSET', KEYS[7], key, ARGV[i + 2])
    out[#out + 1] = 1
  end
end
return out
`;

/**
 * KEYS: the queue's, then the end key. ARGV: max in flight, now ms, 1 when the end key counts.
 * Returns {3} ended (the end key is set, or the counters are gone), {0} busy, {1} empty, or
 * {2, seq, item, more}: more is 1 when fewer than the max are held after this claim and more
 * is queued.
 */
const QUEUE_CLAIM = `
if ARGV[3] == '1' and (redis.call('EXISTS', KEYS[8]) == 1 or redis.call('EXISTS', KEYS[3]) == 0) then return {3} end
local inflight = tonumber(redis.call('HGET', KEYS[3], 'inflight') or '0')
if inflight >= tonumber(ARGV[1]) then return {0} end
local item = redis.call('LPOP', KEYS[2])
if not item then return {1} end
local seq = redis.call('HINCRBY', KEYS[3], 'seq', 1)
redis.call('HINCRBY', KEYS[3], 'inflight', 1)
redis.call('HSET', KEYS[4], tostring(seq), item)
redis.call('HSET', KEYS[5], tostring(seq), ARGV[2])
local more = 0
if inflight + 1 < tonumber(ARGV[1]) and redis.call('LLEN', KEYS[2]) > 0 then more = 1 end
return {2, seq, item, more}
`;

/**
 * KEYS: the queue's, then the marked set. ARGV: seq, 1 when it is marked, then counter name and
 * amount pairs. Returns 1 settled now, 0 not held.
 */
const QUEUE_SETTLE = `
if ARGV[2] == '1' then redis.call('SADD', KEYS[8], ARGV[1]) end
if redis.call('HDEL', KEYS[4], ARGV[1]) == 0 then return 0 end
redis.call('HDEL', KEYS[5], ARGV[1])
for i = 3, #ARGV, 2 do redis.call('HINCRBY', KEYS[3], ARGV[i], ARGV[i + 1]) end
redis.call('HINCRBY', KEYS[3], 'inflight', -1)
redis.call('SADD', KEYS[6], ARGV[1])
return 1
`;

/**
 * KEYS: the queue's, then the set of marked claim numbers. Moves the watermark over the
 * consecutive settled claim numbers, counting the marked ones into `listed`. Returns the watermark.
 */
const QUEUE_ADVANCE = `
local mark = tonumber(redis.call('HGET', KEYS[3], 'watermark') or '0') or 0
local start, listed = mark, 0
while redis.call('SREM', KEYS[6], tostring(mark + 1)) == 1 do
  mark = mark + 1
  listed = listed + redis.call('SREM', KEYS[8], tostring(mark))
end
if mark ~= start then
  redis.call('HSET', KEYS[3], 'watermark', tostring(mark))
  if listed > 0 then redis.call('HINCRBY', KEYS[3], 'listed', listed) end
end
return mark
`;

type QueueKeyArgs = [string, string, string, string, string, string, string];

export interface StateScripts {
  wdsQueueAdmitMany(...args: [...QueueKeyArgs, number, ...(string | number)[]]): Promise<number[]>;
  wdsQueueClaim(...args: [...QueueKeyArgs, string, number, number, number]): Promise<[0] | [1] | [3] | [2, number, string, number]>;
  wdsQueueSettle(...args: [...QueueKeyArgs, string, string, number, ...(string | number)[]]): Promise<number>;
  wdsQueueAdvance(...args: [...QueueKeyArgs, string]): Promise<number>;
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
  wdsQueueAdmitMany: QUEUE_ADMIT_MANY,
  wdsQueueClaim: QUEUE_CLAIM,
  wdsQueueSettle: QUEUE_SETTLE,
  wdsQueueAdvance: QUEUE_ADVANCE,
};

const KEY_COUNTS: Partial<Record<keyof StateScripts, number>> = {
  wdsQueueAdmitMany: QUEUE_KEY_ORDER.length,
  wdsQueueClaim: QUEUE_KEY_ORDER.length + 1,
  wdsQueueSettle: QUEUE_KEY_ORDER.length + 1,
  wdsQueueAdvance: QUEUE_KEY_ORDER.length + 1,
};

/** Defines the scripts on `client` (EVALSHA, falling back to EVAL) and returns them typed. */
export function defineScripts(client: Redis): StateScripts {
  for (const [name, lua] of Object.entries(SCRIPTS)) {
    client.defineCommand(name, { lua, numberOfKeys: KEY_COUNTS[name as keyof StateScripts] ?? 1 });
  }
  return client as unknown as StateScripts;
}

