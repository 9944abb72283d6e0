/**
 * pipeline/runtime/net/http.ts against compression bombs: a page of 1 GiB of zeros sent as
 * about 1 MB of gzip, or 190 KB of brotli, by a local server on 127.0.0.1. The body is counted
 * after decompression while it streams in, so the fetch is refused `content_too_large` once it
 * passes FETCH_MAX_BYTES (15 MiB), long before the gigabyte (the bytes the process's zlib and
 * brotli decoders put out are counted), and without the process's memory growing by anything
 * like it; through got-scraping and on the lean path (lean-hop.ts) alike.
 */
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { constants, createBrotliCompress } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_MAX_BYTES, HttpFetcher } from '../../pipeline/runtime/net/http.js';
import { NetGuard } from '../../pipeline/runtime/net/guard.js';
import { repeatedDeflate } from '../fixtures/documents/deflate.js';
import { countInflated } from '../helpers/inflated.js';

const MIB = 1024 * 1024;
const GIB = 1024 * MIB;

/** 1 GiB of zeros, gzipped: a gzip header, the repeated deflate block, CRC-32 and size. */
function gzipBomb(): Buffer {
  const deflated = repeatedDeflate(Buffer.alloc(MIB), GIB / MIB, 'raw');
  const tail = Buffer.alloc(8);
  tail.writeUInt32LE(deflated.crc >>> 0, 0);
  tail.writeUInt32LE(deflated.size % 2 ** 32, 4);
  return Buffer.concat([Buffer.from([0x1f, 0x8b, 0x08, 0, 0, 0, 0, 0, 0, 0xff]), deflated.raw, tail]);
}

/** 1 GiB of zeros through brotli at its fastest quality, compressed a MiB at a time. */
async function brotliBomb(): Promise<Buffer> {
  const compress = createBrotliCompress({ params: { [constants.BROTLI_PARAM_QUALITY]: 1 } });
  const out: Buffer[] = [];
  compress.on('data', (chunk: Buffer) => out.push(chunk));
  const zeros = Buffer.alloc(MIB);
  for (let i = 0; i < GIB / MIB; i++) if (!compress.write(zeros)) await once(compress, 'drain');
  compress.end();
  await once(compress, 'end');
  return Buffer.concat(out);
}

describe('pipeline/runtime/net/http compression bombs', () => {
  let server: http.Server;
  let base = '';
  let fetcher: HttpFetcher;
  const bombs: Record<string, { body: Buffer; encoding: string }> = {};

  beforeAll(async () => {
    bombs['/gzip-bomb'] = { body: gzipBomb(), encoding: 'gzip' };
    bombs['/br-bomb'] = { body: await brotliBomb(), encoding: 'br' };
    server = http.createServer((req, res) => {
      const bomb = bombs[req.url ?? ''];
      if (!bomb) return void res.writeHead(404).end();
      res.writeHead(200, { 'content-type': 'text/html', 'content-encoding': bomb.encoding, 'content-length': String(bomb.body.length) });
      res.end(bomb.body);
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    fetcher = new HttpFetcher({ guard: new NetGuard({ allowPrivate: true }), retry: { attempts: 1, baseDelayMs: 5, maxDelayMs: 5 } });
  });
  afterAll(async () => {
    fetcher?.close();
    server?.close();
  });

  it.each([
    ['/gzip-bomb', false],
    ['/br-bomb', false],
    ['/gzip-bomb', true],
    ['/br-bomb', true],
  ])('refuses %s content_too_large while it inflates, without growing memory (lean: %s)', async (path, lean) => {
    expect(bombs[path]?.body.length).toBeLessThan(2 * MIB);
    const before = process.memoryUsage();
    const inflated = countInflated();
    let code = '';
    try {
      await fetcher.fetch({ url: `${base}${path}`, timeoutMs: 30_000, lean });
    } catch (error) {
      code = (error as { code?: string }).code ?? String(error);
    } finally {
      inflated.stop();
    }
    const after = process.memoryUsage();
    expect(code).toBe('content_too_large');
    // Inflated past the 15 MiB cap and stopped there, not at the gigabyte: the decoders were
    // cut off as the count passed the cap, whatever the time it took.
    expect(inflated.bytes).toBeGreaterThan(DEFAULT_MAX_BYTES);
    expect(inflated.bytes).toBeLessThan(2 * DEFAULT_MAX_BYTES);
    // Read up to the 15 MiB cap, not the 1 GiB: the growth is bounded by the cap, far below the bomb.
    expect(after.rss - before.rss).toBeLessThan(200 * MIB);
    expect(after.heapUsed - before.heapUsed).toBeLessThan(64 * MIB);
    console.log(JSON.stringify({ case: `${path} fetched${lean ? ' lean' : ''}`, inflatedMb: Math.round(inflated.bytes / MIB), rssGrowthMb: Math.round((after.rss - before.rss) / MIB), heapGrowthMb: Math.round((after.heapUsed - before.heapUsed) / MIB) }));
  });
});
