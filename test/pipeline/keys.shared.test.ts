/**
 * Keys shared across processes. The store registry (pipeline/keys/store-registry.ts: records
 * and ledger in the store, live balances in state) must behave as the file registry does —
 * one contract, run on the file ledger (the reference), on chdb in this process with memory
 * state, and on the ClickHouse HTTP process with Redis. Then two gateway processes on one
 * Redis and one ClickHouse: a hold made by one is seen by the other, and the per-key rate
 * limit is one bucket for both.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FileKeyRegistry } from '../../pipeline/keys/ledger-file.js';
import type { KeyRegistry } from '../../pipeline/keys/registry.js';
import { hashKey } from '../../pipeline/keys/secret.js';
import { LEDGER_SWEEP_AGE_MS, PENDING_LEDGER_KEY, StoreKeyRegistry } from '../../pipeline/keys/store-registry.js';
import { BatchWriter } from '../../pipeline/runtime/store/batch-writer.js';
import { MemoryState } from '../../pipeline/runtime/state/memory.js';
import { RedisState } from '../../pipeline/runtime/state/redis.js';
import type { State } from '../../pipeline/runtime/state/state.js';
import { createStore, type Store } from '../../pipeline/runtime/store/index.js';
import { chdbAvailable, quietLog, startClickHouseProcess, tempDir, type ClickHouseProcess, type TempDir } from '../helpers/clickhouse.js';
import { startCluster, type Cluster, type ServiceProcess } from '../helpers/cluster.js';
import { engine } from '../helpers/engines.js';
import { dropNamespace, REDIS_INSTALL, redisProbe, TEST_REDIS_URL, testNamespace } from '../helpers/redis.js';
import { scrape } from '../helpers/scrape.js';
import { until } from '../helpers/wait.js';

const hasChdb = await chdbAvailable();
const redisUp = await engine('redis', () => redisProbe(), REDIS_INSTALL);

const RECORD_FIELDS = ['balance', 'createdAt', 'id', 'name', 'prefix', 'revoked', 'unlimited'];

interface Backend {
  registry: KeyRegistry;
  /** The state holding live balances (store registries only). */
  state: State | null;
  /** The store holding records and the ledger (store registries only). */
  store?: Store;
  close(): Promise<void>;
}

/** An operator-chosen secret (API_KEY style): at least 16 characters, unique per run. */
const ownSecret = (label: string) => `${label}-${randomBytes(8).toString('hex')}`;

function registryContract(name: string, available: boolean, open: () => Promise<Backend>): void {
  const inStore = name.startsWith('store');
  describe.skipIf(!available)(`pipeline/keys (${name})`, () => {
    let backend: Backend;
    let r: KeyRegistry;

    beforeAll(async () => {
      backend = await open();
      r = backend.registry;
    }, 60_000);
    afterAll(async () => {
      await backend?.close();
    });

    it('creates limited and unlimited keys, returning the secret once and records without it', async () => {
      const { key, record } = await r.create({ name: 'limited', credits: 100 });
      expect(key).toMatch(/^wds_[0-9A-Za-z]{40}$/);
      expect(Object.keys(record).sort()).toEqual(RECORD_FIELDS);
      expect(record).toMatchObject({ name: 'limited', prefix: key.slice(0, 12), unlimited: false, revoked: false, balance: 100 });
      expect(record.id).toMatch(/^key_[0-9A-Za-z]{16}$/);
      expect(new Date(record.createdAt).toISOString()).toBe(record.createdAt);
      expect((await r.create({ name: 'unlimited', credits: 'unlimited' })).record).toMatchObject({ unlimited: true, balance: null });
      const secret = ownSecret('own-secret');
      expect(await r.create({ name: 'own', credits: 5, secret })).toMatchObject({ key: secret, record: { prefix: secret.slice(0, 6), balance: 5 } });
      await expect(r.create({ name: 'again', credits: 1, secret: key })).rejects.toThrow(/already exists/);
    });

    it('authenticates a secret (unknown: null) and shows a revoked key as revoked', async () => {
      const { key, record } = await r.create({ name: 'auth', credits: 7 });
      expect(await r.authenticate(key)).toEqual(record);
      expect(await r.authenticate(`wds_${'x'.repeat(40)}`)).toBeNull();
      expect(await r.revoke(record.id)).toEqual({ ...record, revoked: true });
      expect(await r.authenticate(key)).toEqual({ ...record, revoked: true });
    });

    it('finds keys by id or prefix, lists them, and tops them up', async () => {
      const { record } = await r.create({ name: 'find', credits: 10 });
      expect(await r.get(record.id)).toEqual(record);
      expect(await r.get(record.prefix)).toEqual(record);
      expect(await r.get('key_doesnotexist0000')).toBeNull();
      expect((await r.list()).find((k) => k.id === record.id)).toEqual(record);
      expect(await r.topup(record.prefix, 5)).toMatchObject({ id: record.id, balance: 15 });
      expect((await r.get(record.id))?.balance).toBe(15);
      await expect(r.topup('key_doesnotexist0000', 1)).rejects.toThrow(/no key/);
      await expect(r.revoke('key_doesnotexist0000')).rejects.toThrow(/no key/);
    });

    it('ensure makes a secret an active unlimited key, once', async () => {
      const secret = ownSecret('ensure-new');
      const first = await r.ensure(secret, 'API_KEY');
      expect(first).toMatchObject({ name: 'API_KEY', unlimited: true, revoked: false, balance: null });
      expect((await r.ensure(secret, 'API_KEY')).id).toBe(first.id);
      const { key, record } = await r.create({ name: 'was-limited', credits: 3 });
      await r.revoke(record.id);
      expect(await r.ensure(key, 'API_KEY')).toMatchObject({ id: record.id, unlimited: true, revoked: false, balance: null });
      expect(await r.authenticate(key)).toMatchObject({ id: record.id, unlimited: true, revoked: false });
    });

    it('never overspends: 50 concurrent reservations of 3 against 100 credits, exactly 33 succeed', async () => {
      const { record } = await r.create({ name: 'race', credits: 100 });
      const held = await Promise.all(Array.from({ length: 50 }, () => r.reserve(record, 3)));
      expect(held.filter(Boolean)).toHaveLength(33);
      expect(await r.reserve(record, 2)).toBe(false);
      expect(await r.reserve(record, 1)).toBe(true);
      expect(await r.reserve(record, 1)).toBe(false);
      await Promise.all([...Array.from({ length: 33 }, () => r.release(record, 3)), r.release(record, 1)]);
      expect(await r.reserve(record, 100)).toBe(true);
      await r.release(record, 100);
    });

    it('release gives a hold back; unlimited keys always reserve', async () => {
      const { record } = await r.create({ name: 'release', credits: 10 });
      expect(await r.reserve(record, 10)).toBe(true);
      expect(await r.reserve(record, 1)).toBe(false);
      await r.release(record, 10);
      expect(await r.reserve(record, 10)).toBe(true);
      await r.release(record, 10);
      const unlimited = (await r.create({ name: 'u', credits: 'unlimited' })).record;
      expect(await r.reserve(unlimited, 1_000_000)).toBe(true);
    });

    it('settle charges the actual cost and returns the balance less what others still hold', async () => {
      const { record } = await r.create({ name: 'settle', credits: 100 });
      expect(await r.reserve(record, 10)).toBe(true);
      expect(await r.reserve(record, 20)).toBe(true);
      expect(await r.settle(record, 10, 7, { requestId: `req-${randomBytes(4).toString('hex')}`, op: 'scrape' })).toBe(73);
      expect(await r.settle(record, 20, 20, { requestId: `req-${randomBytes(4).toString('hex')}`, op: 'scrape' })).toBe(73);
      expect((await r.get(record.id))?.balance).toBe(73);
      const unlimited = (await r.create({ name: 'u', credits: 'unlimited' })).record;
      expect(await r.reserve(unlimited, 4)).toBe(true);
      expect(await r.settle(unlimited, 4, 4, { requestId: `req-${randomBytes(4).toString('hex')}`, op: 'scrape' })).toBeNull();
    });

    // Only the store registry keeps live numbers apart from its records.
    it('usage sums the charges of each calendar month, oldest first; top-ups and other keys do not count', async () => {
      const { record } = await r.create({ name: 'usage', credits: 100 });
      const other = (await r.create({ name: 'usage-other', credits: 100 })).record;
      expect(await r.usage(record)).toEqual([]);
      await r.settle(record, 10, 7, { requestId: `req-${randomBytes(4).toString('hex')}`, op: 'scrape' });
      await r.settle(record, 5, 5, { requestId: `req-${randomBytes(4).toString('hex')}`, op: 'crawl' });
      await r.settle(record, 3, 0, { requestId: `req-${randomBytes(4).toString('hex')}`, op: 'scrape' });
      await r.topup(record.id, 50);
      await r.settle(other, 9, 9, { requestId: `req-${randomBytes(4).toString('hex')}`, op: 'scrape' });
      const usage = await r.usage(record);
      expect(usage).toEqual([{ month: expect.stringMatching(/^\d{4}-\d{2}$/), credits: 12 }]);
      expect(await r.usage(other)).toEqual([{ month: usage[0]?.month, credits: 9 }]);
    });

    if (inStore) it('rebuilds a balance and a record from the store after state lost them', async () => {
      const state = backend.state as State;
      const { key, record } = await r.create({ name: 'rebuild', credits: 100 });
      expect(await r.reserve(record, 10)).toBe(true);
      await r.settle(record, 10, 7, { requestId: `req-${randomBytes(4).toString('hex')}`, op: 'scrape' });
      await r.topup(record.id, 5);
      expect(await state.del(`keys:credits:${record.id}`, `keys:hash:${hashKey(key)}`)).toBe(2);
      expect((await r.get(record.id))?.balance).toBe(98);
      expect(await r.authenticate(key)).toEqual({ ...record, balance: 98 });
      expect(await r.reserve(record, 98)).toBe(true);
      expect(await r.reserve(record, 1)).toBe(false);
    });

    if (inStore) it('answers get from a record read within its TTL: a revoke elsewhere shows after it, one here at once; balances are never cached', async () => {
      const store = backend.store as Store;
      const state = backend.state as State;
      let t = Date.parse('2026-01-01T00:00:00Z');
      let recordReads = 0;
      const counting = new Proxy(store, {
        get(target, prop, receiver) {
          if (prop !== 'query') return Reflect.get(target, prop, receiver) as unknown;
          return (sql: string, params?: Record<string, unknown>) => {
            if (sql.includes('FROM api_keys')) recordReads++;
            return target.query(sql, params);
          };
        },
      });
      const cached = new StoreKeyRegistry(counting, state, { now: () => t, recordTtlMs: 5_000 });
      const { record } = await r.create({ name: 'cached', credits: 10 });
      for (let i = 0; i < 5; i++) expect(await cached.get(record.id)).toEqual(record);
      expect(recordReads).toBe(1);
      // Revoked through another registry (another process): served here until the TTL ends.
      await r.revoke(record.id);
      t += 4_999;
      expect((await cached.get(record.id))?.revoked).toBe(false);
      t += 1;
      expect((await cached.get(record.id))?.revoked).toBe(true);
      expect(recordReads).toBe(2);
      // The balance is read from state each time: a top-up elsewhere shows at once.
      await r.topup(record.id, 5);
      expect((await cached.get(record.id))?.balance).toBe(15);
      // A revoke or re-enable through this registry drops its cached record at once.
      const other = (await r.create({ name: 'cached-2', credits: 1 })).record;
      expect((await cached.get(other.prefix))?.revoked).toBe(false);
      await cached.revoke(other.id);
      expect((await cached.get(other.prefix))?.revoked).toBe(true);
      // An unknown key is remembered as unknown for the TTL too, not looked up on every page.
      const reads = recordReads;
      expect(await cached.get('key_unknown000000000')).toBeNull();
      expect(await cached.get('key_unknown000000000')).toBeNull();
      expect(recordReads).toBe(reads + 1);
      cached.close();
    });

    if (inStore) it('sends one read of a record for the gets that miss it at once, and keeps no answer a write here overtook', async () => {
      const store = backend.store as Store;
      const state = backend.state as State;
      let t = Date.parse('2026-01-01T00:00:00Z');
      let recordReads = 0;
      let storeDown = false;
      // Each record read waits for the test to let it go, so gets pile up behind it.
      const held: (() => void)[] = [];
      const counting = new Proxy(store, {
        get(target, prop, receiver) {
          if (prop !== 'query') return Reflect.get(target, prop, receiver) as unknown;
          return async (sql: string, params?: Record<string, unknown>) => {
            if (!sql.includes('FROM api_keys')) return target.query(sql, params);
            recordReads++;
            const rows = await target.query(sql, params);
            await new Promise<void>((resolve) => held.push(resolve));
            if (storeDown) throw new Error('store down');
            return rows;
          };
        },
      });
      const release = async () => {
        while (held.length === 0) await new Promise((resolve) => setTimeout(resolve, 1));
        for (const go of held.splice(0)) go();
      };
      const cached = new StoreKeyRegistry(counting, state, { now: () => t, recordTtlMs: 5_000 });
      const { record } = await r.create({ name: 'coalesced', credits: 10 });
      // Twenty page events miss the record at once: one read answers them all.
      const gets = Array.from({ length: 20 }, () => cached.get(record.id));
      await release();
      expect(await Promise.all(gets)).toEqual(Array.from({ length: 20 }, () => record));
      expect(recordReads).toBe(1);
      // Within the TTL: no read at all.
      expect(await cached.get(record.id)).toEqual(record);
      expect(recordReads).toBe(1);
      // A failed read fails every get that shared it and is not kept: the next get reads again.
      t += 5_000;
      storeDown = true;
      const failed = Promise.allSettled([cached.get(record.id), cached.get(record.id)]);
      await release();
      expect((await failed).map((x) => x.status)).toEqual(['rejected', 'rejected']);
      expect(recordReads).toBe(2);
      storeDown = false;
      const again = cached.get(record.id);
      await release();
      expect(await again).toEqual(record);
      expect(recordReads).toBe(3);
      // A revoke through this registry while a read of the key's prefix is under way: that
      // read's answer (from before the revoke) is not kept; the next get reads it again.
      const stale = cached.get(record.prefix);
      while (held.length === 0) await new Promise((resolve) => setTimeout(resolve, 1));
      const revoking = cached.revoke(record.id);
      // The revoke reads the record afresh (its own read, held behind the first), and writes.
      while (held.length < 2) await new Promise((resolve) => setTimeout(resolve, 1));
      (held.pop() as () => void)();
      await revoking;
      await release();
      expect((await stale)?.revoked).toBe(false);
      const after = cached.get(record.prefix);
      await release();
      expect((await after)?.revoked).toBe(true);
      expect(recordReads).toBe(6);
      cached.close();
    });

    if (inStore) it('batches charges without the caller waiting, and a charge left pending by a killed process is counted once', async () => {
      const store = backend.store as Store;
      const state = backend.state as State;
      let t = Date.now();
      let ledgerInserts = 0;
      const counting = {
        insert: (table: string, rows: readonly Record<string, unknown>[]) => {
          if (table === 'credit_ledger') ledgerInserts++;
          return store.insert(table, rows);
        },
      };
      const writer = new BatchWriter(counting, { maxRows: 1000, maxDelayMs: 20 }, quietLog);
      const actor = new StoreKeyRegistry(store, state, { writer, ledgerDelayMs: 2_000, now: () => t });
      const { record } = await r.create({ name: 'batched', credits: 100 });
      const charges = async (id: string) =>
        Number((await store.query<{ n: string }>("SELECT count() AS n FROM credit_ledger FINAL WHERE key_id = {id:String} AND reason = 'charge'", { id }))[0]?.n);
      const pending = async (id: string) => Object.keys(await state.hgetall(PENDING_LEDGER_KEY)).filter((f) => f.startsWith(`${id}/`)).length;

      for (let i = 0; i < 5; i++) {
        expect(await actor.reserve(record, 2)).toBe(true);
        expect(await actor.settle(record, 2, 1, { requestId: `page-${i}`, op: 'crawlStart' })).toBe(99 - i);
      }
      // Settled, held in state, not yet in the store: one insert of the five lands after 2 s.
      expect(await pending(record.id)).toBe(5);
      expect(await charges(record.id)).toBe(0);
      await until('the batch landed', async () => (await charges(record.id)) === 5 && (await pending(record.id)) === 0);
      expect(ledgerInserts).toBe(1);
      await writer.close();

      // A process killed before its batch went out: the charge is in the pending ledger only.
      const killed = new StoreKeyRegistry(store, state, { writer: { write: () => new Promise<void>(() => undefined) }, ledgerDelayMs: 1_000, now: () => t });
      expect(await killed.reserve(record, 2)).toBe(true);
      expect(await killed.settle(record, 2, 2, { requestId: 'page-killed', op: 'crawlStart' })).toBe(93);
      killed.close();
      expect(await pending(record.id)).toBe(1);
      // The sweep leaves young entries to their batch, then inserts what is left behind.
      expect(await actor.flushPendingLedger({ minAgeMs: LEDGER_SWEEP_AGE_MS })).toBe(0);
      t += LEDGER_SWEEP_AGE_MS;
      expect(await actor.flushPendingLedger({ minAgeMs: LEDGER_SWEEP_AGE_MS })).toBeGreaterThanOrEqual(1);
      expect(await pending(record.id)).toBe(0);
      // Its batch landing after all (or the sweep running twice) inserts the entry again: counted once.
      const [row] = await store.query<Record<string, unknown>>("SELECT * FROM credit_ledger FINAL WHERE key_id = {id:String} AND entry_id = 'charge:page-killed'", { id: record.id });
      expect(row).toMatchObject({ amount: expect.anything(), request_id: 'page-killed' });
      await store.insert('credit_ledger', [row as Record<string, unknown>]);
      expect(await charges(record.id)).toBe(6);
      expect(await r.usage(record)).toEqual([{ month: expect.stringMatching(/^\d{4}-\d{2}$/), credits: 7 }]);
      // The balance rebuilt from the ledger agrees with the live one.
      await state.del(`keys:credits:${record.id}`);
      expect((await r.get(record.id))?.balance).toBe(93);
      actor.close();
    });

    if (inStore) it('usage and a rebuilt balance count charges still pending', async () => {
      const store = backend.store as Store;
      const state = backend.state as State;
      const stuck = new StoreKeyRegistry(store, state, { writer: { write: () => new Promise<void>(() => undefined) }, ledgerDelayMs: 1_000 });
      const { record } = await r.create({ name: 'pending-usage', credits: 10 });
      expect(await stuck.reserve(record, 4)).toBe(true);
      expect(await stuck.settle(record, 4, 4, { requestId: `req-${randomBytes(4).toString('hex')}`, op: 'monitorRun' })).toBe(6);
      expect(await r.usage(record)).toEqual([{ month: expect.stringMatching(/^\d{4}-\d{2}$/), credits: 4 }]);
      expect(await stuck.reserve(record, 3)).toBe(true);
      expect(await stuck.settle(record, 3, 3, { requestId: `req-${randomBytes(4).toString('hex')}`, op: 'monitorRun' })).toBe(3);
      await state.del(`keys:credits:${record.id}`);
      expect((await r.get(record.id))?.balance).toBe(3);
      stuck.close();
    });
  });
}

registryContract('file ledger, the reference', true, async () => {
  const dir = tempDir('wds-keys-file');
  const registry = new FileKeyRegistry(dir.path);
  return {
    registry,
    state: null,
    async close() {
      registry.close();
      dir.remove();
    },
  };
});

/** The store-backed registry over `store` and `state`; closing closes both, then cleans up. */
function storeRegistry(store: Store, state: State, cleanup: () => unknown) {
  return {
    registry: new StoreKeyRegistry(store, state),
    state,
    store,
    async close() {
      await state.close();
      await store.close();
      await cleanup();
    },
  };
}

registryContract('store: chdb in this process + memory state', hasChdb, async () => {
  const dir = tempDir('wds-keys-chdb');
  const store = await createStore({ kind: 'chdb', dataDir: dir.path }, quietLog);
  await store.migrate();
  const state = new MemoryState();
  return storeRegistry(store, state, () => dir.remove());
});

/** The ClickHouse process of the suites below; started by the first that needs it. */
let clickhouse: { proc: ClickHouseProcess; dir: TempDir } | null = null;
async function clickhouseProcess(): Promise<ClickHouseProcess> {
  if (!clickhouse) {
    const dir = tempDir('wds-keys-ch');
    clickhouse = { proc: await startClickHouseProcess(dir.path), dir };
  }
  return clickhouse.proc;
}
afterAll(async () => {
  await clickhouse?.proc.stop();
  clickhouse?.dir.remove();
});

registryContract('store: ClickHouse HTTP served by chdb + Redis', hasChdb && redisUp, async () => {
  const proc = await clickhouseProcess();
  const store: Store = await createStore({ kind: 'clickhouse', url: proc.url }, quietLog);
  await store.migrate();
  const namespace = testNamespace();
  const state = new RedisState({ url: TEST_REDIS_URL, namespace, log: quietLog });
  await state.connect();
  return storeRegistry(store, state, () => dropNamespace(namespace));
});

describe.skipIf(!(hasChdb && redisUp))('pipeline/keys across two gateway processes (Redis + ClickHouse HTTP served by chdb)', () => {
  let cluster: Cluster;
  let a: ServiceProcess;
  let b: ServiceProcess;
  let keys: KeyRegistry;

  beforeAll(async () => {
    // Each process runs the whole service on its own memory bus; they share only the store
    // and Redis, which is where keys, holds and rate limits live.
    cluster = await startCluster({
      bus: 'memory',
      clickhouse: await clickhouseProcess(),
      env: { RATE_LIMIT_BURST: '3', RATE_LIMIT_PER_MINUTE: '1', LOG_LEVEL: 'warn' },
    });
    [a, b] = await Promise.all([cluster.service('all'), cluster.service('all')]);
    keys = await cluster.keys();
  }, 90_000);

  afterAll(async () => {
    await cluster?.stop();
  }, 30_000);

  it('a hold made on one gateway is seen by the other; charges land in the shared ledger', async () => {
    const { key, record } = await keys.create({ name: 'shared', credits: 1 });
    const held = scrape(a.url as string, key, 'https://slow.test/held?delayMs=5000');
    await until('gateway A holds the credit', async () => (await keys.get(record.id))?.balance === 0);

    const refused = await scrape(b.url as string, key, 'https://other.test/refused');
    expect([refused.status, refused.body.error?.code]).toEqual([402, 'insufficient_credits']);

    const first = await held;
    expect(first.status).toBe(200);
    expect(first.body.data?.cost).toEqual({ credits: 1, remaining: 0, source: 'fresh' });

    await keys.topup(record.id, 1);
    const second = await scrape(b.url as string, key, 'https://other.test/after-topup');
    expect(second.status).toBe(200);
    expect(second.body.data?.cost).toEqual({ credits: 1, remaining: 0, source: 'fresh' });
    expect((await keys.get(record.id))?.balance).toBe(0);

    const charges = await cluster
      .store()
      .query<{ request_id: string }>("SELECT request_id FROM credit_ledger FINAL WHERE key_id = {id:String} AND reason = 'charge'", { id: record.id });
    expect(charges.map((c) => c.request_id).sort()).toEqual([first.requestId, second.requestId].sort());
  });

  it('shares one rate-limit bucket per key: a burst of 3 spread over both, the 4th is 429 on either', async () => {
    const { key } = await keys.create({ name: 'rate', credits: 'unlimited' });
    const templates = (base: string | null) =>
      fetch(`${base}/v1/templates`, { headers: { authorization: `Bearer ${key}` }, signal: AbortSignal.timeout(10_000) });
    const allowed = [await templates(a.url), await templates(b.url), await templates(a.url)];
    expect(allowed.map((res) => res.status)).toEqual([200, 200, 200]);
    for (const base of [b.url, a.url]) {
      const res = await templates(base);
      expect(res.status).toBe(429);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe('rate_limited');
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    }
    await Promise.all(allowed.map((res) => res.body?.cancel()));
  });
});

