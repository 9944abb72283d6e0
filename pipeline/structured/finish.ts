/**
 * Finishing a page whose formats asked for extraction, by whichever actor holds its last
 * step: the parser when markup and page rules sufficed, the extractor after a model answered.
 * In order:
 *
 * 1. change tracking (`changeTracking` format): this key's previous snapshot of the URL under
 *    the format's `tag` is read from the store, compared with this page (pipeline/pages/changes.ts:
 *    order-respecting; `git-diff` and `json` modes), and this page's snapshot is written;
 * 2. the markdown the parser made only for extraction leaves the answer; warnings are joined
 *    into the document's `warning`;
 * 3. the answer: the Reply to a waiting request, and for a job's page its `job_pages` row and
 *    JobEvent `page` (pipeline/jobs/job-page.ts).
 *
 * A store failure throws `store_unavailable` (retriable): the pool tries the event again, and
 * rows written before collapse with their second copy.
 */
import type { AnyEmission } from '../runtime/events.js';
import type { Logger } from '../runtime/log.js';
import { replyTo } from '../runtime/request-reply.js';
import type { BatchWriter } from '../runtime/store/batch-writer.js';
import type { Store } from '../runtime/store/store.js';
import { storeJobPage, type JobPageResponse } from '../jobs/job-page.js';
import { comparePages, previousSnapshot, recordSnapshot } from '../pages/changes.js';
import type { FinishPlan } from './task.js';

/** What the finishing actor knows of the page and of who waits for it. */
export interface FinishedPage extends JobPageResponse {
  readonly replyTo: string | null;
  readonly correlationId: string | null;
  readonly source: string;
}

export interface FinishInput {
  readonly page: FinishedPage;
  /** The answer: formats, metadata, `json`, `summary`; `warning` and `changeTracking` are added here. */
  readonly document: Record<string, unknown>;
  readonly warnings: readonly string[];
  readonly plan: FinishPlan;
  readonly title: string;
  readonly contentHash: string;
  readonly links: readonly string[];
}

export interface FinishDeps {
  readonly store: Pick<Store, 'query'>;
  readonly writer: Pick<BatchWriter, 'write'>;
  readonly log?: Logger;
}

async function trackChanges(input: FinishInput, deps: FinishDeps, warnings: string[]): Promise<void> {
  const request = input.plan.changeTracking;
  if (!request) return;
  const { document, page } = input;
  const markdown = typeof document.markdown === 'string' ? document.markdown : '';
  const json = document.json && typeof document.json === 'object' ? (document.json as Record<string, unknown>) : null;
  const key = { tenant: page.tenant, url: page.url, tag: request.tag };
  const current = { scrapedAt: input.plan.scrapedAtMs, statusCode: page.statusCode, markdown, json };
  const previous = await previousSnapshot(deps.store, key);
  const comparison = comparePages(previous, current, request.modes);
  document.changeTracking = comparison.tracking;
  warnings.push(...comparison.warnings);
  await recordSnapshot(deps.writer, key, current);
}

/** The page's answer and job rows: the emissions that finish it. */
export async function finishPage(input: FinishInput, deps: FinishDeps): Promise<AnyEmission[]> {
  const warnings = [...input.warnings];
  await trackChanges(input, deps, warnings);
  const { document, page } = input;
  if (input.plan.dropMarkdown) delete document.markdown;
  // The document may carry its reader's warning already (a PDF read short): kept first.
  const prior = typeof document.warning === 'string' && document.warning ? document.warning.split('; ') : [];
  if (prior.length || warnings.length) document.warning = [...new Set([...prior, ...warnings])].join('; ');
  const data = JSON.stringify(document);
  const job = await storeJobPage(page, { title: input.title, documentJson: data, contentHash: input.contentHash, links: input.links }, deps.writer);
  const reply = replyTo(page, { ok: true, data, errorCode: null, errorMessage: null, credits: page.credits, source: page.source }, deps.log);
  return [...reply, ...job];
}
