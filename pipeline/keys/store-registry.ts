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
 */
import { randomUUID } from 'node:crypto';
import { sleep } from '../runtime/retry.js';
import type { State } from '../runtime/state/state.js';
import type { Store } from '../runtime/store/store.js';
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
  constructor(
    private readonly store: Store,
    private readonly state: State,
    /** Closes the engines when this registry owns them (the command line); the runtime closes its own. */
    private readonly onClose: () => void = () => undefined,
    /** Batched inserts for ledger entries (one per charged request); default: one insert each. */
    private readonly insertRows: (table: string, rows: Record<string, unknown>[]) => Promise<void> = (table, rows) =>
      store.insert(table, rows),
  ) {}

  close(): void {
    this.onClose();
  }

  private async write(key: StoredKey): Promise<void> {
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
    await this.insertRows('credit_ledger', [
      {
        key_id: keyId,
        entry_id: meta.requestId ? `${reason}:${meta.requestId}` : randomUUID(),
        at: new Date().toISOString().replace('T', ' ').replace('Z', ''),
        amount,
        reason,
        request_id: meta.requestId ?? '',
        op: meta.op ?? '',
      },
    ]);
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
    const [row] = await this.store.query<{ balance: string }>(
      'SELECT sum(amount) AS balance FROM credit_ledger FINAL WHERE key_id = {id:String}',
      { id },
    );
    await this.state.setIfAbsent(creditsKeyName(id), String(Number(row?.balance ?? 0)));
    return Number((await this.state.get(creditsKeyName(id))) ?? 0);
  }

  async usage(key: KeyRecord): Promise<MonthlyUsage[]> {
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

  private async mustGet(idOrPrefix: string): Promise<StoredKey> {
    const [key] = await this.rows('id = {v:String} OR prefix = {v:String}', { v: idOrPrefix });
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
    const [key] = await this.rows('id = {v:String} OR prefix = {v:String}', { v: idOrPrefix });
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
