/**
 * Bytes put out by every zlib and brotli stream of this process while counting (the service's
 * own decoders, a library's, a zip entry's inflate alike): what was inflated, so a test shows
 * a decompression bomb was cut off at its limit by the bytes made, not by the time taken.
 * Their common base's `push`, wrapped; `stop` unwraps it.
 */
import type { Readable } from 'node:stream';
import { Unzip } from 'node:zlib';

export function countInflated(): { readonly bytes: number; stop(): void } {
  const base = Object.getPrototypeOf(Object.getPrototypeOf(Unzip.prototype)) as { push?: Readable['push'] };
  const push = Object.getPrototypeOf(base).push as Readable['push'];
  const counter = {
    bytes: 0,
    stop: () => void delete base.push,
  };
  base.push = function (this: Readable, chunk: unknown, encoding?: BufferEncoding): boolean {
    if (chunk instanceof Uint8Array) counter.bytes += chunk.length;
    return push.call(this, chunk, encoding);
  };
  return counter;
}
