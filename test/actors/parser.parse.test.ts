/**
 * actors/parser/parse.ts without a bus: ParseRequested in, Outcome out, run as the pool runs
 * it (test/helpers/events.ts runHandler). Replies are encoded
 * with the real codec, so they match their schema.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { handleParseRequested as handleParse, type ParseRequested } from '../../actors/parser/parse.js';
import type { Logger } from '../../pipeline/runtime/log.js';
import { createCodec } from '../../pipeline/runtime/codec/index.js';
import type { EventCodec } from '../../pipeline/runtime/codec/codec.js';
import { createLogger } from '../../pipeline/runtime/log.js';
import type { Outcome } from '../../pipeline/runtime/pool.js';
import type { EventValue } from '../../schemas/events/index.js';
import { TOPICS } from '../../schemas/topics.js';
import { minimalPdf, zip } from '../fixtures/documents/generate.js';
import { parseRequested, runHandler, soleReply } from '../helpers/events.js';

function request(filename: string, contentType: string, body: Buffer | string, extra: Partial<ParseRequested> = {}): ParseRequested {
  return parseRequested(filename, contentType, body, { requestId: 'req-p1', correlationId: 'corr-p1', ...extra });
}

const deps = { log: createLogger('silent') };

/** The parser's ParseRequested handler, run as the pool runs it. */
function handleParseRequested(event: ParseRequested, deps: { readonly log: Logger }) {
  return runHandler('ParseRequested', (e, ctx) => handleParse(e, { log: ctx.log }), event, { log: deps.log, actor: 'parser' });
}

describe('actors/parser/parse', () => {
  let codec: EventCodec;
  beforeAll(async () => {
    codec = await createCodec();
  });

  const replyOf = async (outcome: Outcome): Promise<EventValue<'Reply'>> => (await soleReply(codec, outcome)).reply;

  it('answers the document of a PDF, 1 credit', async () => {
    const pdf = minimalPdf([['Annual summary', 'Costs fell.']], 'Summary');
    const reply = await replyOf(await handleParseRequested(request('summary.pdf', 'application/pdf', pdf), deps));
    expect(reply).toMatchObject({ correlationId: 'corr-p1', ok: true, credits: 1, errorCode: null });
    const doc = JSON.parse(reply.data ?? '{}') as { markdown: string; metadata: Record<string, unknown> };
    expect(doc.markdown).toContain('Costs fell.');
    expect(doc.metadata).toMatchObject({ title: 'Summary', numPages: 1, sourceURL: 'upload://summary.pdf', contentType: 'application/pdf' });
  });

  it('tells an undeclared type by extension, and honours the options', async () => {
    const options = JSON.stringify({ formats: ['markdown', 'links'] });
    const reply = await replyOf(await handleParseRequested(request('read.md', 'application/octet-stream', '# Title\n\nSee [x](https://example.org/x).', { options }), deps));
    const doc = JSON.parse(reply.data ?? '{}') as { markdown: string; links: string[] };
    expect(doc.markdown).toContain('# Title');
    expect(doc.links).toEqual(['https://example.org/x']);
  });

  it('answers unsupported_file_type for binary of no known type, and file_unreadable for a damaged DOCX', async () => {
    const binary = await replyOf(await handleParseRequested(request('blob', '', Buffer.from([0, 1, 2, 0xff, 0])), deps));
    expect(binary).toMatchObject({ ok: false, errorCode: 'unsupported_file_type', credits: 0 });
    const image = await replyOf(await handleParseRequested(request('x.png', 'image/png', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d])), deps));
    expect(image.errorCode).toBe('unsupported_file_type');
    const docxType = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';
    const damaged = zip({ 'word/document.xml': '<w:document><w:body><w:p>', '[Content_Types].xml': '<Types/>' });
    const unreadable = await replyOf(await handleParseRequested(request('notes.docx', docxType, damaged), deps));
    expect(unreadable).toMatchObject({ ok: false, errorCode: 'file_unreadable', credits: 0 });
  });

  it('answers bad_request for options that are not a JSON object', async () => {
    const reply = await replyOf(await handleParseRequested(request('a.txt', 'text/plain', 'x', { options: '[1]' }), deps));
    expect(reply.errorCode).toBe('bad_request');
  });

  it('drops a request past its deadline without answering', async () => {
    const outcome = await handleParseRequested(request('a.txt', 'text/plain', 'x', { deadlineMs: Date.now() - 1 }), deps);
    expect(outcome).toEqual({ kind: 'ack' });
  });
});
