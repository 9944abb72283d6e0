/**
 * gateway/routes.ts for a `rawResponse` operation (GET /v1/fetch) and the multipart one
 * (POST /v1/parse), with stand-in handlers: the handler's bytes go out as the body with their
 * own content type, the cost in headers, charged like any other success; a failure is the
 * JSON envelope and is not charged; the parse handler receives the uploaded file.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HandlerContext, HandlerResult, UploadedFilePart } from '../../gateway/handler.js';
import { buildOpenApi } from '../../gateway/openapi.js';
import { AppError } from '../../pipeline/runtime/errors.js';
import { RAW_RESPONSE_HEADERS } from '../../schemas/api/operations.js';
import { bearer, testGateway, type TestGateway } from '../helpers/gateway.js';

const BYTES = Buffer.from([0x00, 0xff, 0xfe, 0x80, 0x41, 0x0a]);

describe('gateway/routes raw responses', () => {
  let gw: TestGateway;
  let answer: (ctx: HandlerContext) => Promise<HandlerResult>;
  const uploads: UploadedFilePart[] = [];
  beforeAll(async () => {
    gw = await testGateway(
      { RATE_LIMIT_PER_MINUTE: '0' },
      {
        handlers: {
          fetch: { estimate: () => 1, handle: (ctx) => answer(ctx) },
          parse: {
            estimate: () => 1,
            handle: async (ctx) => {
              const { file } = ctx.body as { file: UploadedFilePart };
              uploads.push(file);
              return { data: { markdown: `${file.filename}: ${file.data.length} bytes` }, credits: 1 };
            },
          },
        },
      },
    );
  });
  afterAll(() => gw.close());

  const get = (key: string, query = '?url=https%3A%2F%2Fexample.com%2Fa.bin') => gw.app.inject({ method: 'GET', url: `/v1/fetch${query}`, headers: bearer(key) });

  it('sends the bytes with their content type and headers, the cost in x-credits-*', async () => {
    const key = await gw.key(3);
    let query: Record<string, unknown> = {};
    answer = async (ctx) => {
      query = ctx.query;
      return { raw: { body: BYTES, contentType: 'image/x-test', headers: { [RAW_RESPONSE_HEADERS.upstreamStatus.name]: '404' } }, credits: 1, source: 'fresh' };
    };
    const res = await get(key);
    expect(query).toEqual({ url: 'https://example.com/a.bin' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('image/x-test');
    expect(res.rawPayload.equals(BYTES)).toBe(true);
    expect(res.headers['x-upstream-status']).toBe('404');
    expect(res.headers['x-credits-charged']).toBe('1');
    expect(res.headers['x-credits-remaining']).toBe('2');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['content-security-policy']).toBe('sandbox');
    expect(res.headers['x-request-id']).toBeTruthy();
  });

  it('sends an empty content type as application/octet-stream', async () => {
    answer = async () => ({ raw: { body: BYTES, contentType: '' }, credits: 1 });
    const res = await get(await gw.key());
    expect(res.headers['content-type']).toBe('application/octet-stream');
    expect(res.headers['x-credits-remaining']).toBe('unlimited');
  });

  it('answers a failure as the JSON envelope, uncharged', async () => {
    const key = await gw.key(1);
    answer = async () => {
      throw new AppError('url_blocked', 'refused');
    };
    const res = await get(key);
    expect(res.statusCode).toBe(403);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.json()).toMatchObject({ success: false, error: { code: 'url_blocked' } });
    answer = async () => ({ raw: { body: BYTES, contentType: 'text/plain' }, credits: 1 });
    expect((await get(key)).headers['x-credits-remaining']).toBe('0');
  });

  it('hands POST /v1/parse its file: name, declared type and bytes', async () => {
    const boundary = 'raw-test-boundary';
    const payload = Buffer.concat([
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="r.pdf"\r\nContent-Type: application/pdf\r\n\r\n`),
      BYTES,
      Buffer.from(`\r\n--${boundary}--\r\n`),
    ]);
    const res = await gw.app.inject({
      method: 'POST',
      url: '/v1/parse',
      headers: { ...bearer(await gw.key()), 'content-type': `multipart/form-data; boundary=${boundary}` },
      payload,
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toMatchObject({ markdown: 'r.pdf: 6 bytes', cost: { credits: 1 } });
    expect(uploads.at(-1)).toMatchObject({ filename: 'r.pdf', mimetype: 'application/pdf' });
    expect(uploads.at(-1)?.data.equals(BYTES)).toBe(true);
  });

  it('has no HEAD twin for a priced GET, which would fetch and charge; free GETs keep theirs', async () => {
    const key = await gw.key(3);
    let calls = 0;
    answer = async () => {
      calls += 1;
      return { raw: { body: BYTES, contentType: 'image/x-test', headers: {} }, credits: 1 };
    };
    const head = await gw.app.inject({ method: 'HEAD', url: '/v1/fetch?url=https%3A%2F%2Fexample.com%2Fa.bin', headers: bearer(key) });
    expect(head.statusCode).toBe(404);
    expect(calls).toBe(0);
    const templates = await gw.app.inject({ method: 'HEAD', url: '/v1/templates', headers: bearer(key) });
    expect(templates.statusCode).toBe(200);
  });

  it('declares the raw headers in the OpenAPI document', () => {
    const doc = buildOpenApi() as { paths: Record<string, Record<string, { responses: Record<string, { headers?: Record<string, unknown> }> }>> };
    const headers = doc.paths['/v1/fetch']?.get?.responses['200']?.headers ?? {};
    expect(Object.keys(headers).sort()).toEqual(Object.values(RAW_RESPONSE_HEADERS).map((h) => h.name).sort());
  });
});
