/**
 * Keys and credits for the embedded mode: an append-only ledger of JSON lines in
 * `DATA_DIR/keys.jsonl`, shared by the server and `npm run keys` (any number of processes
 * on one machine). Every change is one appended line (`O_APPEND`, one write); every reader
 * applies the lines it has not seen yet before it answers, so a key created, topped up or
 * revoked by the command line is seen by the running server on its next request.
 *
 * Only the SHA-256 of a key is stored. Balances are the sum of a key's credit lines.
 */
import { closeSync, fstatSync, mkdirSync, openSync, readSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import type { KeyRecord, KeyRegistry, NewKeyOptions } from './registry.js';
import { generateKey, generateKeyId, hashKey, keyPrefix } from './secret.js';

type LedgerLine =
  | { t: 'key'; id: string; name: string; hash: string; prefix: string; unlimited: boolean; at: string }
  | { t: 'update'; id: string; revoked?: boolean; unlimited?: boolean; at: string }
  | { t: 'credit'; id: string; amount: number; reason: 'grant' | 'topup' | 'charge'; requestId?: string; op?: string; at: string };

interface MutableKey {
  id: string;
  name: string;
  hash: string;
  prefix: string;
  unlimited: boolean;
  revoked: boolean;
  balance: number;
  createdAt: string;
}

export class FileKeyRegistry implements KeyRegistry {
  private readonly fd: number;
  private offset = 0;
  private partial = '';
  private readonly byId = new Map<string, MutableKey>();
  private readonly byHash = new Map<string, MutableKey>();

  constructor(dataDir: string) {
    mkdirSync(dataDir, { recursive: true });
    this.fd = openSync(join(dataDir, 'keys.jsonl'), 'a+', 0o600);
    this.sync();
  }

  close(): void {
    closeSync(this.fd);
  }

  /** Applies ledger lines other processes appended since the last call. */
  sync(): void {
    const size = fstatSync(this.fd).size;
    if (size <= this.offset) return;
    const buf = Buffer.alloc(size - this.offset);
    let read = 0;
    while (read < buf.length) {
      const n = readSync(this.fd, buf, read, buf.length - read, this.offset + read);
      if (n === 0) break;
      read += n;
    }
    this.offset += read;
    const text = this.partial + buf.subarray(0, read).toString('utf8');
    const lines = text.split('\n');
    this.partial = lines.pop() ?? '';
    for (const line of lines) if (line.trim()) this.apply(JSON.parse(line) as LedgerLine);
  }

  private apply(line: LedgerLine): void {
    if (line.t === 'key') {
      const key: MutableKey = {
        id: line.id,
        name: line.name,
        hash: line.hash,
        prefix: line.prefix,
        unlimited: line.unlimited,
        revoked: false,
        balance: 0,
        createdAt: line.at,
      };
      this.byId.set(key.id, key);
      this.byHash.set(key.hash, key);
      return;
    }
    const key = this.byId.get(line.id);
    if (!key) return;
    if (line.t === 'update') {
      if (line.revoked !== undefined) key.revoked = line.revoked;
      if (line.unlimited !== undefined) key.unlimited = line.unlimited;
    } else {
      key.balance += line.amount;
    }
  }

  private append(line: LedgerLine): void {
    writeSync(this.fd, `${JSON.stringify(line)}\n`);
    this.sync();
  }

  private view(key: MutableKey): KeyRecord {
    return {
      id: key.id,
      name: key.name,
      prefix: key.prefix,
      unlimited: key.unlimited,
      revoked: key.revoked,
      balance: key.unlimited ? null : key.balance,
      createdAt: key.createdAt,
    };
  }

  async create(options: NewKeyOptions): Promise<{ key: string; record: KeyRecord }> {
    const secret = options.secret ?? generateKey();
    this.sync();
    if (this.byHash.has(hashKey(secret))) throw new Error('this key already exists');
    const id = generateKeyId();
    const at = new Date().toISOString();
    this.append({ t: 'key', id, name: options.name, hash: hashKey(secret), prefix: keyPrefix(secret), unlimited: options.credits === 'unlimited', at });
    if (options.credits !== 'unlimited' && options.credits > 0) {
      this.append({ t: 'credit', id, amount: options.credits, reason: 'grant', at });
    }
    return { key: secret, record: this.view(this.byId.get(id) as MutableKey) };
  }

  async ensure(secret: string, name: string): Promise<KeyRecord> {
    this.sync();
    const existing = this.byHash.get(hashKey(secret));
    if (!existing) return (await this.create({ name, credits: 'unlimited', secret })).record;
    if (existing.revoked || !existing.unlimited) {
      this.append({ t: 'update', id: existing.id, revoked: false, unlimited: true, at: new Date().toISOString() });
    }
    return this.view(existing);
  }

  async authenticate(secret: string): Promise<KeyRecord | null> {
    this.sync();
    const key = this.byHash.get(hashKey(secret));
    return key ? this.view(key) : null;
  }

  async get(idOrPrefix: string): Promise<KeyRecord | null> {
    this.sync();
    const key = this.byId.get(idOrPrefix) ?? [...this.byId.values()].find((k) => k.prefix === idOrPrefix);
    return key ? this.view(key) : null;
  }

  async list(): Promise<KeyRecord[]> {
    this.sync();
    return [...this.byId.values()].map((k) => this.view(k));
  }

  async revoke(id: string): Promise<KeyRecord> {
    const key = await this.mustGet(id);
    this.append({ t: 'update', id: key.id, revoked: true, at: new Date().toISOString() });
    return this.view(key);
  }

  async topup(id: string, credits: number): Promise<KeyRecord> {
    const key = await this.mustGet(id);
    this.append({ t: 'credit', id: key.id, amount: credits, reason: 'topup', at: new Date().toISOString() });
    return this.view(key);
  }

  async charge(id: string, credits: number, meta: { requestId: string; op: string }): Promise<number | null> {
    const key = await this.mustGet(id);
    if (credits > 0) {
      this.append({ t: 'credit', id: key.id, amount: -credits, reason: 'charge', ...meta, at: new Date().toISOString() });
    }
    return key.unlimited ? null : key.balance;
  }

  private async mustGet(idOrPrefix: string): Promise<MutableKey> {
    const record = await this.get(idOrPrefix);
    if (!record) throw new Error(`no key with id or prefix "${idOrPrefix}"`);
    return this.byId.get(record.id) as MutableKey;
  }
}
