/**
 * POST /v1/parse, the one multipart operation: its `file` field is required (422 at
 * ['body','file'] when absent), and a request with a file passes validation and reaches the
 * operation's handler (a stand-in here; the parser's own is tested in test/e2e/fetch-parse).
 * Bodies are built by hand so every byte on the wire is known.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OperationHandler, UploadedFilePart } from '../../gateway/handler.js';
import { bearer, testGateway, type TestGateway } from '../helpers/gateway.js';
import { expectErrorEnvelope, expectValidationBody } from './reply-shape.js';

const BOUNDARY = '----wds-test-boundary-7MA4YWxkTrZu0gW';
const MULTIPART = `multipart/form-data; boundary=${BOUNDARY}`;

interface Part {
  name: string;
  content: string | Buffer;
  /** Present for a file part. */
  filename?: string;
  type?: string;
}

function multipart(parts: Part[], { close = true } = {}): Buffer {
  const chunks: Buffer[] = [];
  for (const p of parts) {
    const disposition = `form-data; name="${p.name}"${p.filename === undefined ? '' : `; filename="${p.filename}"`}`;
    const type = p.filename === undefined ? '' : `Content-Type: ${p.type ?? 'application/octet-stream'}\r\n`;
    chunks.push(Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: ${disposition}\r\n${type}\r\n`), Buffer.from(p.content), Buffer.from('\r\n'));
  }
  if (close) chunks.push(Buffer.from(`--${BOUNDARY}--\r\n`));
  return Buffer.concat(chunks);
}

const PDF = { name: 'file', filename: 'report.pdf', type: 'application/pdf', content: '%PDF-1.4\n%âãÏÓ\n1 0 obj <<>> endobj\n%%EOF\n' };

describe('schemas/api contract: POST /v1/parse upload', () => {
  let gw: TestGateway;
  let key: string;
  const received: UploadedFilePart[] = [];
  beforeAll(async () => {
    const parse: OperationHandler = {
      handle: async (ctx) => {
        const { file } = ctx.body as { file: UploadedFilePart };
        received.push(file);
        return { data: { filename: file.filename, bytes: file.data.length } };
      },
    };
    gw = await testGateway({ RATE_LIMIT_PER_MINUTE: '0', UPLOAD_LIMIT_BYTES: '1024' }, { handlers: { parse } });
    key = await gw.key();
  });
  afterAll(() => gw.close());

  const upload = (payload: Buffer, contentType = MULTIPART, auth = true) =>
    gw.app.inject({
      method: 'POST',
      url: '/v1/parse',
      headers: { ...(auth ? bearer(key) : {}), 'content-type': contentType },
      payload,
    });

  const expectFileMissing = (res: { statusCode: number; body: string }) => {
    expect(res.statusCode, res.body).toBe(422);
    const body = JSON.parse(res.body) as { detail: unknown };
    expectValidationBody(body);
    expect(body.detail).toEqual([{ loc: ['body', 'file'], msg: expect.any(String), type: 'missing' }]);
  };

  it('a file in the `file` field passes validation and reaches the handler', async () => {
    const res = await upload(multipart([PDF, { name: 'note', content: 'extra text fields are ignored' }]));
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toMatchObject({ filename: 'report.pdf', bytes: Buffer.byteLength(PDF.content) });
    expect(received.at(-1)).toMatchObject({ filename: 'report.pdf', mimetype: 'application/pdf' });
    expect(received.at(-1)?.data.equals(Buffer.from(PDF.content))).toBe(true);
  });

  it('no file at all is 422 missing at body.file', async () => {
    expectFileMissing(await upload(multipart([{ name: 'note', content: 'hello' }])));
    expectFileMissing(await upload(multipart([])));
  });

  it('a file under another field name is 422 missing at body.file', async () => {
    expectFileMissing(await upload(multipart([{ ...PDF, name: 'document' }])));
  });

  it('a text field named `file` is not a file', async () => {
    expectFileMissing(await upload(multipart([{ name: 'file', content: 'just text' }])));
  });

  it('a JSON body is 415 unsupported_media_type', async () => {
    const res = await upload(Buffer.from(JSON.stringify({ file: 'aGVsbG8=' })), 'application/json');
    expect(res.statusCode).toBe(415);
    expectErrorEnvelope(415, res.json());
    expect(res.json().error.code).toBe('unsupported_media_type');
  });

  it('without a key is 401 missing_api_key', async () => {
    const res = await upload(multipart([PDF]), MULTIPART, false);
    expect(res.statusCode).toBe(401);
    expect(res.json().error.code).toBe('missing_api_key');
  });

  it('a file over the upload limit is 413 payload_too_large', async () => {
    const res = await upload(multipart([{ ...PDF, content: Buffer.alloc(4096, 0x41) }]));
    expect(res.statusCode).toBe(413);
    expectErrorEnvelope(413, res.json());
    expect(res.json().error.code).toBe('payload_too_large');
  });

  it('a broken multipart body is 400 bad_request, not a 500', async () => {
    const truncated = await upload(multipart([PDF], { close: false }));
    const noBoundary = await upload(multipart([PDF]), 'multipart/form-data');
    // Regression guard (found by this test; fixed in gateway/routes.ts readUploads): busboy's
    // plain Errors ("Unexpected end of multipart data", "Multipart: Boundary not found") carry
    // no code or status and were answered 500 internal_error.
    expect([truncated.statusCode, noBoundary.statusCode]).toEqual([400, 400]);
    expectErrorEnvelope(400, truncated.json());
    expectErrorEnvelope(400, noBoundary.json());
  });
});
