/**
 * Counting what a compressed part of a document inflates to, while it inflates: the output
 * is counted and dropped, and inflating stops as soon as it passes the part's allowance, so a
 * bomb costs at most its allowance in time and a chunk in memory. The budget is the whole
 * document's: every part draws from DOCUMENT_MAX_INFLATED_BYTES, and each part may inflate to
 * at most DOCUMENT_MAX_INFLATE_RATIO times its compressed size once past RATIO_FLOOR_BYTES.
 *
 * Small parts are inflated in one call bounded by `maxOutputLength` (many small parts are
 * common, and a stream per part would cost more than the inflating); a small part that
 * does not inflate cleanly, and every larger part, goes through a stream, whose output is
 * counted up to the error too.
 */
import { constants, createInflate, createInflateRaw, inflateRawSync, inflateSync, type Inflate, type InflateRaw } from 'node:zlib';
import { RATIO_FLOOR_BYTES, tooComplex, type DocumentLimits } from './limits.js';

/** Compressed parts below this size are inflated in one call. */
const ONE_CALL_BELOW = 64 * 1024;
const CHUNK = 256 * 1024;

export type Compression = 'zlib' | 'raw';

/** What `data` inflates to through `layers` inflations, counted up to `cap` (a larger count means: past it). */
export async function inflatedSize(data: Uint8Array, compression: Compression, layers: number, cap: number): Promise<number> {
  if (layers === 1 && data.length < ONE_CALL_BELOW) {
    try {
      const options = { maxOutputLength: cap + 1, finishFlush: constants.Z_SYNC_FLUSH };
      return (compression === 'raw' ? inflateRawSync(data, options) : inflateSync(data, options)).length;
    } catch (error) {
      if ((error as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') return cap + 1;
      // Damaged data: the stream below counts what it inflates to before the damage.
    }
  }
  return streamedSize(data, compression, layers, cap);
}

function streamedSize(data: Uint8Array, compression: Compression, layers: number, cap: number): Promise<number> {
  return new Promise((resolve) => {
    const chain: (Inflate | InflateRaw)[] = Array.from({ length: Math.max(1, layers) }, (_, i) =>
      compression === 'raw' && i === 0 ? createInflateRaw({ chunkSize: CHUNK }) : createInflate({ chunkSize: CHUNK }),
    );
    let total = 0;
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      for (const stream of chain) stream.destroy();
      resolve(total);
    };
    for (let i = 0; i + 1 < chain.length; i++) (chain[i] as Inflate).pipe(chain[i + 1] as Inflate);
    const last = chain[chain.length - 1] as Inflate;
    last.on('data', (chunk: Buffer) => {
      total += chunk.length;
      if (total > cap) finish();
    });
    last.once('end', finish);
    for (const stream of chain) stream.once('error', finish);
    (chain[0] as Inflate).end(data);
  });
}

/** The inflated bytes of one document, drawn part by part from its limits. */
export class InflationBudget {
  private used = 0;

  constructor(
    private readonly limits: DocumentLimits,
    /** What the document is, for messages: "The DOCX", "The PDF". */
    private readonly what: string,
  ) {}

  /** Counts one part; throws `file_too_complex` when it passes the ratio or the document's total. */
  async take(data: Uint8Array, compression: Compression, layers: number, part: string): Promise<void> {
    const { maxInflatedBytes, maxInflateRatio } = this.limits;
    const left = maxInflatedBytes - this.used;
    const byRatio = Math.max(RATIO_FLOOR_BYTES, data.length * maxInflateRatio);
    const cap = Math.min(left, byRatio);
    const size = await inflatedSize(data, compression, layers, cap);
    if (size > cap) {
      throw byRatio < left
        ? tooComplex(`${this.what}'s ${part} inflates to more than ${maxInflateRatio} times its compressed ${data.length} bytes: a compression bomb is not read.`)
        : tooComplex(`${this.what} inflates to more than ${maxInflatedBytes} bytes in all, this instance's limit for one document.`);
    }
    this.used += size;
  }

  get inflated(): number {
    return this.used;
  }
}
