/**
 * The parser actor: reads PageFetched, builds the scrape document (actors/parser/document),
 * stores the page copy in the `pages` table through the runtime's batch writer, and answers
 * the request's reply topic with the document. A page the parser cannot read (unsupported
 * content, a broken PDF) is answered with its error code; store outages are retried.
 */
import { createHash } from 'node:crypto';
import type { ScrapeOptions } from '../../schemas/api/scrape-options.js';
import type { EventValue } from '../../schemas/events/index.js';
import { ERRORS, isErrorCode } from '../../schemas/errors.js';
import type { ActorDefinition, Outcome } from '../../pipeline/pool.js';
import { replyTo } from '../../pipeline/request-reply.js';
import type { Runtime } from '../../pipeline/runtime.js';
import { buildDocument, type ScrapeDocument } from './document/index.js';

type PageFetched = EventValue<'PageFetched'>;

function optionsOf(json: string): ScrapeOptions {
  try {
    const value: unknown = JSON.parse(json || '{}');
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as ScrapeOptions) : {};
  } catch {
    return {};
  }
}

/** The `pages` row of a fetched page (infra/clickhouse/0001_init.sql). */
export function pagesRow(page: PageFetched, parsed: { title: string; document: string; contentHash: string }): Record<string, unknown> {
  return {
    tenant: page.tenant,
    url: page.url,
    fetched_at: page.fetchedAtMs,
    request_id: page.requestId,
    job_id: page.jobId ?? '',
    status_code: page.statusCode,
    content_type: page.contentType,
    final_url: page.finalUrl,
    title: parsed.title,
    document: parsed.document,
    content_hash: parsed.contentHash,
  };
}

export async function handlePageFetched(page: PageFetched, runtime: Pick<Runtime, 'writer'>): Promise<Outcome> {
  let document: ScrapeDocument;
  try {
    document = await buildDocument(
      {
        bytes: Buffer.from(page.body),
        contentType: page.contentType,
        url: page.url,
        finalUrl: page.finalUrl,
        statusCode: page.statusCode,
        headers: page.headers,
      },
      optionsOf(page.options),
    );
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    const known = typeof code === 'string' && isErrorCode(code) ? code : 'internal_error';
    if (ERRORS[known].retriable) return { kind: 'retry', code: known, message: (error as Error).message };
    const message = error instanceof Error ? error.message : String(error);
    return { kind: 'ack', emit: replyTo(page, { ok: false, data: null, errorCode: known, errorMessage: message, credits: 0, source: null }) };
  }
  const json = JSON.stringify(document);
  // A store failure throws store_unavailable (retriable): the pool tries the page again.
  await runtime.writer.write('pages', [
    pagesRow(page, {
      title: typeof document.metadata.title === 'string' ? document.metadata.title : '',
      document: json,
      contentHash: createHash('sha256').update(page.body).digest('hex'),
    }),
  ]);
  return { kind: 'ack', emit: replyTo(page, { ok: true, data: json, errorCode: null, errorMessage: null, credits: page.credits, source: 'fresh' }) };
}

export function createParserActor(runtime: Runtime): ActorDefinition {
  return {
    name: 'parser',
    group: 'parser',
    topics: ['pageFetched'],
    concurrency: runtime.config.poolConcurrency,
    timeoutMs: 120_000,
    async handler(event) {
      if (event.event !== 'PageFetched') return { kind: 'dead', code: 'event_undecodable', message: `unexpected ${event.event} event` };
      return handlePageFetched(event.value as PageFetched, runtime);
    },
  };
}
