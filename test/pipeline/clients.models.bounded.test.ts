/**
 * pipeline/clients/models/bounded-fetch.ts: a model provider's answer is read up to
 * MODEL_ANSWER_MAX_BYTES (after decompression) through the real AI SDK path. A local server
 * on 127.0.0.1 speaks Chat Completions' path and answers a gzip bomb (its inflated answer
 * stopped the process: a string past V8's longest) or an endless body: each is model_failed,
 * and the client stops reading.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { boundedBody, MODEL_ANSWER_MAX_BYTES } from '../../pipeline/clients/models/bounded-fetch.js';
import { generateStructured, operatorModel, type ModelChoice } from '../../pipeline/clients/models/index.js';
import { AppError } from '../../pipeline/runtime/errors.js';
import { loadConfig } from '../../pipeline/service/config.js';

const SCHEMA = { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] };
/** 64 MiB of spaces inside a JSON answer, gzipped: ~64 KB on the wire. */
const BOMB = gzipSync(Buffer.concat([Buffer.from('{"id":"x","choices":[{"message":{"content":"'), Buffer.alloc(64 * 1024 * 1024, 0x20), Buffer.from('"}}]}')]));

interface Provider {
  readonly url: string;
  /** Bytes the server wrote before the client hung up or it finished. */
  written: number;
  close(): Promise<void>;
}

async function provider(answer: (res: http.ServerResponse, count: (n: number) => void) => void): Promise<Provider> {
  const state = { written: 0 };
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => answer(res, (n) => (state.written += n)));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  return {
    url,
    get written() {
      return state.written;
    },
    close: () => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
  } as Provider;
}

let open: Provider | null = null;
afterEach(async () => {
  await open?.close();
  open = null;
});

async function ask(url: string): Promise<AppError> {
  const config = loadConfig({ MODEL_PROVIDER: 'openai', MODEL_API_KEY: 'sk-test', OPENAI_BASE_URL: url, MODEL_TIMEOUT_MS: '60000', MODEL_MAX_RETRIES: '0' });
  const error = await generateStructured(operatorModel(config) as ModelChoice, { system: 's', prompt: 'a page', schema: SCHEMA }, { config }).then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(AppError);
  return error as AppError;
}

describe('pipeline/clients/models/bounded-fetch', () => {
  it(`fails a gzip bomb model_failed once ${MODEL_ANSWER_MAX_BYTES} bytes are inflated`, async () => {
    open = await provider((res, count) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip', 'content-length': String(BOMB.length) });
      count(BOMB.length);
      res.end(BOMB);
    });
    const error = await ask(open.url);
    expect(error.code).toBe('model_failed');
  });

  it('fails an endless answer model_failed, and stops reading it', async () => {
    const chunk = Buffer.alloc(64 * 1024, 0x20);
    open = await provider((res, count) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"id":"x","choices":[{"message":{"content":"');
      const more = () => {
        while (!res.destroyed) {
          count(chunk.length);
          if (!res.write(chunk)) return void res.once('drain', more);
        }
      };
      more();
    });
    const error = await ask(open.url);
    expect(error.code).toBe('model_failed');
    // The client hung up a little past the limit (what the sockets' buffers held), not after gigabytes.
    await expect.poll(() => open?.written ?? 0).toBeGreaterThan(MODEL_ANSWER_MAX_BYTES);
    expect(open.written).toBeLessThan(MODEL_ANSWER_MAX_BYTES + 32 * 1024 * 1024);
  });

  it('passes a body within the limit through unchanged, and errors one past it', async () => {
    const stream = (sizes: number[]) => new ReadableStream<Uint8Array>({ start: (c) => (sizes.forEach((n) => c.enqueue(new Uint8Array(n).fill(97))), c.close()) });
    expect(await new Response(boundedBody(stream([3, 4]), 7)).text()).toBe('aaaaaaa');
    await expect(new Response(boundedBody(stream([3, 4, 1]), 7)).text()).rejects.toThrow(/larger than this service reads \(7 bytes\)/);
  });
});
