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
import type { State } from '../state/state.js';
import type { Store } from '../store/store.js';
import type { KeyRecord, KeyRegistry, NewKeyOptions } from './registry.js';
import { generateKey, generateKeyId, hashKey, keyPrefix } from './secret.js';

interface StoredKey {
  id: string;
  name: string;
  hash: string;
  prefix: string;
  unlimited: boolean;
  revoked: boolean;
  createdAt: string;
}

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
    await this.store.insert('credit_ledger', [
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

  private async view(key: StoredKey): Promise<KeyRecord> {
    return { ...key, balance: key.unlimited ? null : await this.available(key.id) };
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
    if (await this.byHash(hashKey(secret))) throw new Error('this key already exists');
    const key: StoredKey = {
      id: generateKeyId(),
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
    const existing = await this.byHash(hashKey(secret));
    if (!existing) return (await this.create({ name, credits: 'unlimited', secret })).record;
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
