/**
 * Keys and credits for the embedded mode: an append-only ledger of JSON lines in
 * `DATA_DIR/keys.jsonl`, shared by the server and `npm run keys` (any number of processes
 * on one machine). Every change is one appended line (`O_APPEND`, one write); every reader
 * applies the lines it has not seen yet before it answers, so a key created, topped up or
 * revoked by the command line is seen by the running server on its next request.
 *
 * Only the SHA-256 of a key is stored. Balances are the sum of a key's credit lines. Holds of
 * requests in flight live in this process only: the server is the one process that charges
 * (the command line only grants), and a hold dies with the request that made it.
 */
import { closeSync, fstatSync, mkdirSync, openSync, readSync, watch, writeSync, type FSWatcher } from 'node:fs';
import { join } from 'node:path';
import { keyRecord, type KeyRecord, type KeyRegistry, type MonthlyUsage, type NewKeyOptions, type StoredKeyFields } from './registry.js';
import { generateKey, generateKeyId, hashKey, keyPrefix } from './secret.js';

type LedgerLine =
  | { t: 'key'; id: string; name: string; hash: string; prefix: string; unlimited: boolean; at: string }
  | { t: 'update'; id: string; revoked?: boolean; unlimited?: boolean; at: string }
  | { t: 'credit'; id: string; amount: number; reason: 'grant' | 'topup' | 'charge'; requestId?: string; op?: string; at: string };

type MutableKey = { -readonly [K in keyof StoredKeyFields]: StoredKeyFields[K] } & { balance: number };

/** Longest a request may act on a ledger older than the file, whatever the watcher says. */
const MAX_STALENESS_MS = 250;
/** Known secrets whose key is remembered (see `bySecret`); past it the memo starts again. */
const MAX_REMEMBERED_SECRETS = 1024;

export class FileKeyRegistry implements KeyRegistry {
  private readonly fd: number;
  private readonly watcher: FSWatcher | null;
  /** Set by the file watcher when another process appended; cleared by a read. */
  private dirty = true;
  private lastReadMs = 0;
  private offset = 0;
  private partial = '';
  private readonly byId = new Map<string, MutableKey>();
  private readonly byHash = new Map<string, MutableKey>();
  /**
   * The key of each secret that authenticated, so a request's key is a map lookup instead of
   * a SHA-256 (the largest cost of a request answered without work, such as a 422). It maps to
   * the live record, which ledger lines update in place, so revocations, top-ups and charges
   * are seen exactly as before; unknown secrets are never remembered, and the memo is bounded.
   */
  private readonly bySecret = new Map<string, MutableKey>();
  /** Credits held by this process's requests in flight, by key id. */
  private readonly held = new Map<string, number>();
  /** Credits charged by month (`YYYY-MM`, from each charge line's time), by key id: kept as lines are applied. */
  private readonly charged = new Map<string, Map<string, number>>();

  constructor(dataDir: string) {
    mkdirSync(dataDir, { recursive: true });
    const path = join(dataDir, 'keys.jsonl');
    this.fd = openSync(path, 'a+', 0o600);
    this.watcher = this.watchFile(path);
    this.sync();
  }

  private watchFile(path: string): FSWatcher | null {
    try {
      const watcher = watch(path, { persistent: false }, () => {
        this.dirty = true;
      });
      watcher.on('error', () => {
        this.dirty = true;
      });
      return watcher;
    } catch {
      return null; // No change notifications here: every request reads the file's size.
    }
  }

  close(): void {
    this.watcher?.close();
    closeSync(this.fd);
  }

  /**
   * The hot path's read: only when the watcher saw a change, when there is no watcher, or
   * when the last read is older than MAX_STALENESS_MS.
   */
  private freshen(): void {
    const now = Date.now();
    if (this.dirty || !this.watcher || now - this.lastReadMs > MAX_STALENESS_MS) this.sync();
  }

  /** Marks this process's view as read up to the file's end, now. */
  private caughtUp(): void {
    this.dirty = false;
    this.lastReadMs = Date.now();
  }

  /** Applies ledger lines other processes appended since the last call. */
  sync(): void {
    this.caughtUp();
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
      if (line.reason === 'charge') {
        const months = this.charged.get(key.id) ?? new Map<string, number>();
        const month = line.at.slice(0, 7);
        months.set(month, (months.get(month) ?? 0) - line.amount);
        this.charged.set(key.id, months);
      }
    }
  }

  /**
   * Appends one line and applies it. When nothing else was appended before it (the file ends
   * where this process's read had got to, plus the line), the line is applied as written
   * rather than read back and parsed: a crawl settles a charge for every page.
   */
  private append(line: LedgerLine): void {
    const text = `${JSON.stringify(line)}\n`;
    const bytes = Buffer.byteLength(text);
    const before = this.offset;
    writeSync(this.fd, text);
    if (this.partial === '' && fstatSync(this.fd).size === before + bytes) {
      this.offset = before + bytes;
      this.caughtUp();
      this.apply(line);
      return;
    }
    this.sync();
  }

  private view(key: MutableKey): KeyRecord {
    return keyRecord(key, key.balance);
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

  known(secret: string): KeyRecord | undefined {
    this.freshen();
    const known = this.bySecret.get(secret);
    // Still the record the ledger holds for its hash (a re-added key line would replace it).
    return known && this.byHash.get(known.hash) === known ? this.view(known) : undefined;
  }

  async authenticate(secret: string): Promise<KeyRecord | null> {
    const known = this.known(secret);
    if (known) return known;
    const hash = hashKey(secret);
    let key = this.byHash.get(hash);
    if (!key) {
      this.sync(); // a key created a moment ago by another process
      key = this.byHash.get(hash);
    }
    if (!key) return null;
    if (this.bySecret.size >= MAX_REMEMBERED_SECRETS) this.bySecret.clear();
    this.bySecret.set(secret, key);
    return this.view(key);
  }

  async get(idOrPrefix: string): Promise<KeyRecord | null> {
    // As fresh as `known` (the frontier reads its job's key for every page it schedules and
    // settles); a key not found may have been created a moment ago by another process.
    this.freshen();
    let key = this.find(idOrPrefix);
    if (!key) {
      this.sync();
      key = this.find(idOrPrefix);
    }
    return key ? this.view(key) : null;
  }

  private find(idOrPrefix: string): MutableKey | undefined {
    return this.byId.get(idOrPrefix) ?? [...this.byId.values()].find((k) => k.prefix === idOrPrefix);
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

  // reserve and settle follow `authenticate` on the same request, which has just read the
  // ledger; they use what it read.
  async reserve(key: KeyRecord, credits: number): Promise<boolean> {
    const current = this.byId.get(key.id);
    if (!current) return false;
    const held = this.held.get(key.id) ?? 0;
    if (!current.unlimited && current.balance - held < credits) return false;
    this.held.set(key.id, held + credits);
    return true;
  }

  async release(key: KeyRecord, credits: number): Promise<void> {
    const left = (this.held.get(key.id) ?? 0) - credits;
    if (left > 0) this.held.set(key.id, left);
    else this.held.delete(key.id);
  }

  async settle(key: KeyRecord, reserved: number, actual: number, meta: { requestId: string; op: string }): Promise<number | null> {
    await this.release(key, reserved);
    const current = this.byId.get(key.id);
    if (!current) throw new Error(`no key with id "${key.id}"`);
    if (actual > 0) {
      this.append({ t: 'credit', id: current.id, amount: -actual, reason: 'charge', ...meta, at: new Date().toISOString() });
    }
    return current.unlimited ? null : current.balance - (this.held.get(current.id) ?? 0);
  }

  async usage(key: KeyRecord): Promise<MonthlyUsage[]> {
    this.freshen();
    const months = this.charged.get(key.id);
    if (!months) return [];
    return [...months].sort(([a], [b]) => (a < b ? -1 : 1)).map(([month, credits]) => ({ month, credits }));
  }

  private async mustGet(idOrPrefix: string): Promise<MutableKey> {
    const record = await this.get(idOrPrefix);
    if (!record) throw new Error(`no key with id or prefix "${idOrPrefix}"`);
    return this.byId.get(record.id) as MutableKey;
  }
}
