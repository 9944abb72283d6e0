/**
 * Keys and credits for the distributed mode: key records and the credit ledger in the store
 * (`api_keys`, versioned rows; `credit_ledger`, one row per grant, top-up or charge), and the
 * live numbers in coordination state, shared by every gateway process:
 *
 * - `keys:hash:<sha256>` — the key record as JSON, so authentication is one state read;
 * - `keys:credits:<id>` — credits available now: the ledger's balance less what in-flight
 *   requests hold. A reservation is `decrIfAtLeast`, so concurrent requests on any number of
 *   gateways never spend more than the balance.
 *
 * When state has lost a number (a Redis restart), it is rebuilt from the store: the record
 * from `api_keys`, the balance as the sum of the ledger.
 *
 * Two per-page costs of a crawl are kept off the store (issue 36):
 *
 * - `get(id)` answers from a record this process read at most `recordTtlMs` ago (default
 *   KEY_RECORD_TTL_MS, 5 s) instead of a `SELECT … FROM api_keys FINAL` each time. The
 *   balance is never cached (it is read from state each time); only the record is — name,
 *   `unlimited` and `revoked`. A key revoked, made unlimited or re-created through this
 *   registry drops from its cache at once; one revoked through another process (the command
 *   line, another gateway) is still served here for at most `recordTtlMs`.
 * - With `ledgerDelayMs` (the actors' registries, default LEDGER_BATCH_MS, 1 s), a charge is
 *   written to the state's pending ledger (`keys:ledger:pending`, one hash field per entry)
 *   and then joins the batch writer's `credit_ledger` batch, which may wait that long to
 *   fill; the caller does not wait for it. The pending field is removed once the row landed.
 *   A process killed with rows in its batch leaves their fields behind: a sweep (one process
 *   at a time, every LEDGER_SWEEP_MS) inserts entries older than LEDGER_SWEEP_AGE_MS again,
 *   and `usage` and a balance rebuilt from the ledger insert a key's pending entries first.
 *   Inserting an entry twice is harmless: `credit_ledger` is a ReplacingMergeTree on
 *   (key_id, entry_id), and every read of it is FINAL, so a charge is counted once.
 */
import { randomUUID } from 'node:crypto';
import type { Logger } from '../runtime/log.js';
import { sleep } from '../runtime/retry.js';
import type { State } from '../runtime/state/state.js';
import type { Store } from '../runtime/store/store.js';
import { RecordCache } from './record-cache.js';
import { keyRecord, type KeyRecord, type KeyRegistry, type MonthlyUsage, type NewKeyOptions, type StoredKeyFields } from './registry.js';
import { generateKey, generateKeyId, hashKey, keyPrefix } from './secret.js';

type StoredKey = StoredKeyFields;

interface KeyRow {
  id: string;
  name: string;
  hash: string;
  prefix: string;
  unlimited: number;
  revoked: number;
  created_at: string;
}

const hashKeyName = (hash: string) => `keys:hash:${hash}`;
const claimKeyName = (hash: string) => `keys:claim:${hash}`;
/** How long a creator's claim on a key hash holds (and how long `ensure` waits for it). */
const CLAIM_TTL_MS = 10_000;
const ENSURE_POLL_MS = 100;

class KeyExists extends Error {
  constructor() {
    super('this key already exists');
  }
}
const creditsKeyName = (id: string) => `keys:credits:${id}`;
/** Charges written and not yet known to have landed in `credit_ledger`: field → the row as JSON. */
export const PENDING_LEDGER_KEY = 'keys:ledger:pending';
/** Held by the process sweeping the pending ledger, so one process at a time does it. */
const SWEEP_LOCK_KEY = 'keys:ledger:sweeping';

/** How long a process answers `get` from a key record it read (a revoke elsewhere shows after at most this). */
export const KEY_RECORD_TTL_MS = 5_000;
/** Key records a process keeps for `get` at most. */
const MAX_RECORDS = 10_000;
/** How long an actor's charge waits for its `credit_ledger` batch to fill. */
export const LEDGER_BATCH_MS = 1_000;
/** How often the pending ledger is swept for entries a killed process left behind. */
export const LEDGER_SWEEP_MS = 10_000;
/** A pending entry this old is inserted by the sweep (its batch would have landed long before). */
export const LEDGER_SWEEP_AGE_MS = 30_000;

type LedgerRow = Record<string, unknown> & { key_id: string; entry_id: string };

/** What the registry needs of the runtime's batch writer. */
export interface LedgerWriter {
  write(table: string, rows: Record<string, unknown>[], options?: { maxDelayMs?: number }): Promise<void>;
}

export interface StoreKeyRegistryOptions {
  /** Closes the engines when this registry owns them (the command line); the runtime closes its own. */
  readonly onClose?: () => void;
  /** Batched inserts for ledger entries (the runtime's batch writer); default: one insert each. */
  readonly writer?: LedgerWriter;
  /**
   * Charges wait up to this long for their batch, held in the pending ledger meanwhile, and
   * `settle` does not wait for them to land (needs `writer`). Unset: `settle` waits for its row.
   */
  readonly ledgerDelayMs?: number;
  /** How long `get` answers from a record it read (default KEY_RECORD_TTL_MS; 0: never cached). */
  readonly recordTtlMs?: number;
  /** The clock (ms since the epoch). */
  readonly now?: () => number;
  readonly log?: Logger;
}

function fromRow(row: KeyRow): StoredKey {
  return {
    id: row.id,
    name: row.name,
    hash: row.hash,
    prefix: row.prefix,
    unlimited: Number(row.unlimited) === 1,
    revoked: Number(row.revoked) === 1,
    createdAt: new Date(`${row.created_at.replace(' ', 'T')}Z`).toISOString(),
  };
}

export class StoreKeyRegistry implements KeyRegistry {
  private readonly now: () => number;
  /** Key records by the id or prefix they were asked for (null: no such key). */
  private readonly records: RecordCache<StoredKey>;
  private readonly sweeper: NodeJS.Timeout | null = null;
  private sweeping: Promise<void> | null = null;

  constructor(
    private readonly store: Store,
    private readonly state: State,
    private readonly options: StoreKeyRegistryOptions = {},
  ) {
    this.now = options.now ?? Date.now;
    this.records = new RecordCache(Math.max(0, options.recordTtlMs ?? KEY_RECORD_TTL_MS), MAX_RECORDS, this.now);
    if (this.lazyLedger) {
      this.sweeper = setInterval(() => {
        this.sweeping ??= this.sweepPendingLedger()
          .catch((error: unknown) => this.options.log?.warn({ err: error }, 'the pending credit ledger could not be swept; the next sweep tries again'))
          .finally(() => (this.sweeping = null));
      }, LEDGER_SWEEP_MS);
      this.sweeper.unref();
    }
  }

  private get lazyLedger(): boolean {
    return this.options.writer !== undefined && this.options.ledgerDelayMs !== undefined;
  }

  close(): void {
    if (this.sweeper) clearInterval(this.sweeper);
    this.options.onClose?.();
  }

  private insertRows(table: string, rows: Record<string, unknown>[]): Promise<void> {
    return this.options.writer ? this.options.writer.write(table, rows) : this.store.insert(table, rows);
  }

  /**
   * Inserts pending ledger entries (those of `keyId`, or every one at least `minAgeMs` old)
   * and removes them from the pending ledger. Safe alongside the batch they are also in: an
   * entry inserted twice collapses (see the header).
   */
  async flushPendingLedger(filter: { keyId?: string; minAgeMs?: number } = {}): Promise<number> {
    const pending = await this.state.hgetall(PENDING_LEDGER_KEY);
    const due: [string, LedgerRow][] = [];
    const cutoff = this.now() - (filter.minAgeMs ?? 0);
    for (const [field, json] of Object.entries(pending)) {
      let row: LedgerRow & { pending_at?: number };
      try {
        row = JSON.parse(json) as LedgerRow & { pending_at?: number };
      } catch {
        await this.state.hdel(PENDING_LEDGER_KEY, field);
        continue;
      }
      if (filter.keyId !== undefined && row.key_id !== filter.keyId) continue;
      if (filter.minAgeMs !== undefined && !(Number(row.pending_at) <= cutoff)) continue;
      const { pending_at: _, ...ledgerRow } = row;
      due.push([field, ledgerRow as LedgerRow]);
    }
    if (due.length === 0) return 0;
    await this.store.insert(
      'credit_ledger',
      due.map(([, row]) => row),
    );
    await this.state.hdel(PENDING_LEDGER_KEY, ...due.map(([field]) => field));
    return due.length;
  }

  /** The periodic sweep: entries a killed process left pending, one process at a time. */
  private async sweepPendingLedger(): Promise<void> {
    if (!(await this.state.setIfAbsent(SWEEP_LOCK_KEY, String(this.now()), LEDGER_SWEEP_MS))) return;
    const inserted = await this.flushPendingLedger({ minAgeMs: LEDGER_SWEEP_AGE_MS });
    if (inserted > 0) this.options.log?.info({ entries: inserted }, 'pending credit ledger entries inserted by the sweep');
  }

  /** A charge: held in the pending ledger, then batched; the caller does not wait for the insert. */
  private async charge(row: LedgerRow): Promise<void> {
    const writer = this.options.writer as LedgerWriter;
    const field = `${row.key_id}/${row.entry_id}`;
    await this.state.hset(PENDING_LEDGER_KEY, { [field]: JSON.stringify({ ...row, pending_at: this.now() }) });
    void writer
      .write('credit_ledger', [row], { maxDelayMs: this.options.ledgerDelayMs })
      .then(() => this.state.hdel(PENDING_LEDGER_KEY, field))
      .catch((error: unknown) =>
        this.options.log?.warn({ err: error, entryId: row.entry_id }, 'a credit ledger entry did not land in its batch; it stays pending and the sweep inserts it'),
      );
  }

  private forget(key: StoredKey): void {
    this.records.forget(key.id, key.prefix);
  }

  private async write(key: StoredKey): Promise<void> {
    this.forget(key);
    await this.store.insert('api_keys', [
      {
        id: key.id,
        name: key.name,
        hash: key.hash,
        prefix: key.prefix,
        unlimited: key.unlimited ? 1 : 0,
        revoked: key.revoked ? 1 : 0,
        version: Date.now() * 1000 + Math.floor(Math.random() * 1000),
        created_at: key.createdAt.replace('T', ' ').replace('Z', ''),
      },
    ]);
    await this.state.set(hashKeyName(key.hash), JSON.stringify(key));
  }

  private async ledger(keyId: string, amount: number, reason: string, meta: { requestId?: string; op?: string } = {}): Promise<void> {
    const row: LedgerRow = {
      key_id: keyId,
      entry_id: meta.requestId ? `${reason}:${meta.requestId}` : randomUUID(),
      at: new Date(this.now()).toISOString().replace('T', ' ').replace('Z', ''),
      amount,
      reason,
      request_id: meta.requestId ?? '',
      op: meta.op ?? '',
    };
    if (reason === 'charge' && this.lazyLedger) await this.charge(row);
    else await this.insertRows('credit_ledger', [row]);
  }

  private async rows(where: string, params: Record<string, unknown>): Promise<StoredKey[]> {
    const rows = await this.store.query<KeyRow>(
      `SELECT id, name, hash, prefix, unlimited, revoked, created_at FROM api_keys FINAL WHERE ${where} ORDER BY created_at`,
      params,
    );
    return rows.map(fromRow);
  }

  /** Credits available now, rebuilt from the ledger when state has lost the number. */
  private async available(id: string): Promise<number> {
    const cached = await this.state.get(creditsKeyName(id));
    if (cached !== null) return Number(cached);
    // Charges still pending (in this process's batch or another's) count: any registry inserts them first.
    await this.flushPendingLedger({ keyId: id });
    const [row] = await this.store.query<{ balance: string }>(
      'SELECT sum(amount) AS balance FROM credit_ledger FINAL WHERE key_id = {id:String}',
      { id },
    );
    await this.state.setIfAbsent(creditsKeyName(id), String(Number(row?.balance ?? 0)));
    return Number((await this.state.get(creditsKeyName(id))) ?? 0);
  }

  async usage(key: KeyRecord): Promise<MonthlyUsage[]> {
    // Charges another process has not inserted yet count too (any registry may hold them).
    await this.flushPendingLedger({ keyId: key.id });
    const rows = await this.store.query<{ month: string; credits: string | number }>(
      `SELECT formatDateTime(toStartOfMonth(at), '%Y-%m') AS month, -sum(amount) AS credits
       FROM credit_ledger FINAL WHERE key_id = {id:String} AND reason = 'charge'
       GROUP BY month ORDER BY month`,
      { id: key.id },
    );
    return rows.map((r) => ({ month: r.month, credits: Number(r.credits) }));
  }

  /** The record callers see: never the key's hash (the file registry's records have none either). */
  private async view(key: StoredKey): Promise<KeyRecord> {
    return keyRecord(key, key.unlimited ? 0 : await this.available(key.id));
  }

  private async byHash(hash: string): Promise<StoredKey | null> {
    const cached = await this.state.get(hashKeyName(hash));
    if (cached) return JSON.parse(cached) as StoredKey;
    const [key] = await this.rows('hash = {hash:String}', { hash });
    if (!key) return null;
    await this.state.set(hashKeyName(hash), JSON.stringify(key));
    return key;
  }

  /** The stored record, read now. */
  private async byIdOrPrefix(idOrPrefix: string): Promise<StoredKey | null> {
    const [key = null] = await this.rows('id = {v:String} OR prefix = {v:String}', { v: idOrPrefix });
    return key;
  }

  private async mustGet(idOrPrefix: string): Promise<StoredKey> {
    const key = await this.byIdOrPrefix(idOrPrefix);
    if (!key) throw new Error(`no key with id or prefix "${idOrPrefix}"`);
    return key;
  }

  async create(options: NewKeyOptions): Promise<{ key: string; record: KeyRecord }> {
    const secret = options.secret ?? generateKey();
    const hash = hashKey(secret);
    if (await this.byHash(hash)) throw new KeyExists();
    const id = generateKeyId();
    // Two processes creating the same key at once (gateways starting with one API_KEY): the
    // first to claim the hash creates it, the other is told it exists.
    if (!(await this.state.setIfAbsent(claimKeyName(hash), id, CLAIM_TTL_MS))) throw new KeyExists();
    const key: StoredKey = {
      id,
      name: options.name,
      hash: hashKey(secret),
      prefix: keyPrefix(secret),
      unlimited: options.credits === 'unlimited',
      revoked: false,
      createdAt: new Date().toISOString(),
    };
    const credits = options.credits === 'unlimited' ? 0 : options.credits;
    if (credits > 0) await this.ledger(key.id, credits, 'grant');
    await this.state.set(creditsKeyName(key.id), String(credits));
    await this.write(key);
    return { key: secret, record: await this.view(key) };
  }

  async ensure(secret: string, name: string): Promise<KeyRecord> {
    let existing = await this.byHash(hashKey(secret));
    for (let waited = 0; !existing; waited += ENSURE_POLL_MS) {
      try {
        return (await this.create({ name, credits: 'unlimited', secret })).record;
      } catch (error) {
        // Another process is creating it right now: wait for its record.
        if (!(error instanceof KeyExists) || waited >= CLAIM_TTL_MS) throw error;
        await sleep(ENSURE_POLL_MS);
        existing = await this.byHash(hashKey(secret));
      }
    }
    if (existing.revoked || !existing.unlimited) await this.write({ ...existing, revoked: false, unlimited: true });
    return this.view({ ...existing, revoked: false, unlimited: true });
  }

  async authenticate(secret: string): Promise<KeyRecord | null> {
    const key = await this.byHash(hashKey(secret));
    return key ? this.view(key) : null;
  }

  async get(idOrPrefix: string): Promise<KeyRecord | null> {
    const key = await this.records.get(idOrPrefix, () => this.byIdOrPrefix(idOrPrefix));
    return key ? this.view(key) : null;
  }

  async list(): Promise<KeyRecord[]> {
    return Promise.all((await this.rows('1 = 1', {})).map((k) => this.view(k)));
  }

  async revoke(idOrPrefix: string): Promise<KeyRecord> {
    const key = { ...(await this.mustGet(idOrPrefix)), revoked: true };
    await this.write(key);
    return this.view(key);
  }

  async topup(idOrPrefix: string, credits: number): Promise<KeyRecord> {
    const key = await this.mustGet(idOrPrefix);
    await this.available(key.id);
    await this.ledger(key.id, credits, 'topup');
    await this.state.incr(creditsKeyName(key.id), credits);
    return this.view(key);
  }

  async reserve(key: KeyRecord, credits: number): Promise<boolean> {
    if (key.unlimited || credits === 0) return true;
    await this.available(key.id);
    return (await this.state.decrIfAtLeast(creditsKeyName(key.id), credits)) !== null;
  }

  async release(key: KeyRecord, credits: number): Promise<void> {
    if (key.unlimited || credits === 0) return;
    await this.state.incr(creditsKeyName(key.id), credits);
  }

  async settle(key: KeyRecord, reserved: number, actual: number, meta: { requestId: string; op: string }): Promise<number | null> {
    if (actual > 0) await this.ledger(key.id, -actual, 'charge', meta);
    if (key.unlimited) return null;
    return reserved === actual ? this.available(key.id) : this.state.incr(creditsKeyName(key.id), reserved - actual);
  }
}
