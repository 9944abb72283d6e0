/**
 * Large event payloads travel by reference ("claim check"): an encoded event larger than the
 * bus's comfortable message size is written to a blob store and the message carries only its
 * id in the `x-wds-blob` header. Kafka's default message limit is 1 MB; pages are routinely
 * larger. Blobs expire after a day (the store's TTL), far longer than any event waits.
 */
import { randomUUID } from 'node:crypto';
import { AppError } from './errors.js';
import type { Store } from './store/store.js';

/** Largest payload accepted at all, by reference or not. */
export const MAX_PAYLOAD_BYTES = 64 * 1024 * 1024;

export interface BlobStore {
  put(data: Buffer): Promise<string>;
  get(id: string): Promise<Buffer>;
}

export class MemoryBlobs implements BlobStore {
  private readonly blobs = new Map<string, Buffer>();

  async put(data: Buffer): Promise<string> {
    const id = randomUUID();
    this.blobs.set(id, data);
    return id;
  }

  async get(id: string): Promise<Buffer> {
    const data = this.blobs.get(id);
    if (!data) throw new AppError('event_undecodable', `blob ${id} is missing`);
    // A blob is read by the one consumer its event reaches (redeliveries aside): keep it
    // briefly for a redelivery, then let it go.
    setTimeout(() => this.blobs.delete(id), 60_000).unref();
    return data;
  }
}

/** Blobs in the store's `blobs` table, base64 in a String column (JSONEachRow needs text). */
export class StoreBlobs implements BlobStore {
  constructor(private readonly store: Store) {}

  async put(data: Buffer): Promise<string> {
    const id = randomUUID();
    await this.store.insert('blobs', [{ id, created_at: Date.now(), data: data.toString('base64') }]);
    return id;
  }

  async get(id: string): Promise<Buffer> {
    const rows = await this.store.query<{ data: string }>('SELECT data FROM blobs WHERE id = {id:String} LIMIT 1', { id });
    const row = rows[0];
    if (!row) throw new AppError('event_undecodable', `blob ${id} is missing or expired`);
    return Buffer.from(row.data, 'base64');
  }
}
