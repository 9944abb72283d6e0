/**
 * Running one monitor check (MonitorCheckRequested): the classifier reads each page through
 * the scrape path (a ScrapeRequested answered on the replies topic, like POST /v1/scrape:
 * cache rules, fetcher or renderer, parser, SSRF guard), judges it against the page's previous
 * snapshot (judge.ts) and stores the result, then completes the check.
 *
 * - One check at a time per monitor: the check must hold the monitor's running latch
 *   (pipeline/monitors/schedule.ts); a check that finds another holding it ends
 *   `skipped_overlap`.
 * - Paid before it runs: the credits of every page still to read (a fetched page each) are
 *   held on the key; a key that cannot hold them ends the check `skipped_no_credits` with the
 *   reason, nothing read. Each page is charged what its scrape cost (a page that could not be
 *   read costs nothing); the hold's rest is released.
 * - Safe to receive twice and to resume: a check already final is acknowledged and nothing
 *   else; one worker at a time runs a check (a lock on its id, extended as pages are judged); a check resumed after a crash (the frontier sends its event again, same id) reads
 *   only the pages it had not judged. A page's result row is written before its snapshot, so
 *   a crash between the two reports the change again on the next check rather than never.
 * - An unreachable page is that page's `error`, never a failed check.
 * - When the check found a page new, changed, removed or failing and the monitor has a
 *   webhook, a MonitorChecked goes to the notifier, which delivers it on its own time: a
 *   receiver that is down never holds the next check.
 */
import type { KeyRegistry } from '../../pipeline/keys/registry.js';
import {
  countsOf,
  isFinal,
  judgedPages,
  readCheck,
  writeCheck,
  writePage,
  type CheckRecord,
  type CheckStatus,
  type PageResult,
} from '../../pipeline/monitors/checks.js';
import { readMonitor, type MonitorRecord } from '../../pipeline/monitors/record.js';
import { extendRunning, releaseRunning, RUNNING_TTL_MS, takeRunning } from '../../pipeline/monitors/schedule.js';
import { monitorSnapshots, recordMonitorSnapshot } from '../../pipeline/monitors/snapshots.js';
import { scrapeRequestFields, scrapeTopic } from '../../pipeline/pages/scrape-request.js';
import type { AnyEmission } from '../../pipeline/runtime/events.js';
import type { Logger } from '../../pipeline/runtime/log.js';
import type { Outcome } from '../../pipeline/runtime/pool.js';
import { mapBounded } from '../../pipeline/runtime/bounded.js';
import { ask, failedReply, PIPELINE_SLACK_MS, type ReplyValue, type Requester } from '../../pipeline/runtime/request-reply.js';
import type { Lock, State } from '../../pipeline/runtime/state/state.js';
import type { BatchWriter } from '../../pipeline/runtime/store/batch-writer.js';
import type { Store } from '../../pipeline/runtime/store/store.js';
import { PRICES } from '../../schemas/api/prices.js';
import type { ScrapeOptions } from '../../schemas/api/scrape-options.js';
import type { EventValue } from '../../schemas/events/index.js';
import { HEADERS } from '../../schemas/topics.js';
import { judgePage } from './judge.js';

export type MonitorCheckRequested = EventValue<'MonitorCheckRequested'>;

export interface CheckDeps {
  readonly state: State;
  readonly store: Pick<Store, 'query'>;
  readonly writer: Pick<BatchWriter, 'write'>;
  readonly keys: KeyRegistry;
  /** Asks the scrape path for one page (started lazily by the actor). */
  readonly requester: () => Promise<Requester>;
  readonly pageTimeoutMs: number;
  readonly pageConcurrency: number;
  readonly log: Logger;
  readonly now?: () => number;
}

/**
 * The scrape options of a monitor's page: markdown of the main content, never from the cache
 * (a check wants the page as it is now), the monitor's page timeout; the other fields at the
 * defaults the gateway's validation fills in (schemas/api/scrape-options.ts).
 */
export function checkScrapeOptions(timeoutMs: number): ScrapeOptions {
  return {
    formats: ['markdown'],
    onlyMainContent: true,
    maxAge: 0,
    storeInCache: true,
    waitFor: 0,
    timeout: timeoutMs,
    captchaHandling: 'auto',
    captchaEvidence: false,
    mobile: false,
    proxy: 'auto',
    blockAssets: true,
    removeBase64Images: true,
  };
}

async function finish(deps: CheckDeps, check: CheckRecord, status: CheckStatus, reason: string): Promise<void> {
  const now = (deps.now ?? Date.now)();
  await writeCheck(deps.writer, { ...check, status, reason, finishedAtMs: now, startedAtMs: check.startedAtMs ?? now });
}

async function readPage(deps: CheckDeps, check: CheckRecord, url: string, position: number, signal: AbortSignal): Promise<ReplyValue> {
  const fields = scrapeRequestFields(checkScrapeOptions(deps.pageTimeoutMs));
  const ctx = { requestId: `${check.id}:${position + 1}`, tenant: check.tenant, signal };
  try {
    const requester = await deps.requester();
    return await ask(requester, ctx, scrapeTopic(fields), { jobId: null, url, ...fields }, deps.pageTimeoutMs + PIPELINE_SLACK_MS);
  } catch (error) {
    return failedReply(error);
  }
}

/** Whether the check found something the webhook is for: a page new, changed, removed or failing. */
export function worthNotifying(check: Pick<CheckRecord, 'counts'>): boolean {
  const c = check.counts;
  return c.new + c.changed + c.removed + c.error > 0;
}

function checkedEvent(monitor: MonitorRecord, check: CheckRecord): AnyEmission {
  return {
    topic: 'monitorEvents',
    key: monitor.id,
    headers: { [HEADERS.requestId]: check.id },
    value: { tenant: monitor.tenant, monitorId: monitor.id, checkId: check.id, createdAtMs: Date.now() },
  };
}

export async function handleCheckRequested(event: MonitorCheckRequested, deps: CheckDeps, signal: AbortSignal): Promise<Outcome> {
  const now = deps.now ?? Date.now;
  const check = await readCheck(deps.store, event.tenant, event.monitorId, event.checkId);
  if (!check || isFinal(check.status)) return { kind: 'ack' };
  const monitor = await readMonitor(deps.store, event.tenant, event.monitorId);
  if (!monitor) {
    await finish(deps, check, 'skipped_deleted', 'the monitor was deleted');
    await releaseRunning(deps.state, check.monitorId, check.id);
    return { kind: 'ack' };
  }
  const holder = await takeRunning(deps.state, monitor.id, check.id);
  if (holder !== null) {
    await finish(deps, check, 'skipped_overlap', `check ${holder} of this monitor is still running`);
    return { kind: 'ack' };
  }
  // The event sent twice (a resume while the first worker still runs it): one worker runs it.
  const worker = await deps.state.lock(workerLock(check.id), RUNNING_TTL_MS);
  if (!worker) return { kind: 'ack' };
  try {
    return await runCheck(deps, monitor, check, now, signal, worker);
  } finally {
    if (!signal.aborted) await releaseRunning(deps.state, monitor.id, check.id);
    await worker.release();
  }
}

const workerLock = (checkId: string) => `monitor-check:${checkId}`;

async function runCheck(deps: CheckDeps, monitor: MonitorRecord, check: CheckRecord, now: () => number, signal: AbortSignal, worker: Lock): Promise<Outcome> {
  const done = await judgedPages(deps.store, check);
  const judged = new Set(done.map((p) => p.url));
  const todo = check.urls.map((url, position) => ({ url, position })).filter((p) => !judged.has(p.url));
  const held = todo.length * PRICES.freshPage.credits;
  const account = await deps.keys.get(check.tenant);
  if (!account || account.revoked || !(await deps.keys.reserve(account, held))) {
    const reason = !account || account.revoked ? 'the key is revoked' : `insufficient_credits: the check needs ${held} credits; the key's balance does not cover them`;
    await finish(deps, check, 'skipped_no_credits', reason);
    deps.log.info({ monitorId: monitor.id, checkId: check.id }, 'monitor check skipped: no credits');
    return { kind: 'ack' };
  }
  const running: CheckRecord = { ...check, status: 'running', startedAtMs: check.startedAtMs ?? now() };
  await writeCheck(deps.writer, running);
  const results: PageResult[] = [...done];
  let charged = 0;
  try {
    const previous = await monitorSnapshots(deps.store, check.tenant, monitor.id, todo.map((p) => p.url));
    await mapBounded(todo, deps.pageConcurrency, async ({ url, position }) => {
      const reply = await readPage(deps, check, url, position, signal);
      if (signal.aborted) return;
      const judgement = judgePage({ url, position, checkedAtMs: now() }, previous.get(url) ?? null, reply);
      // A page costs what its scrape cost, never more than the fetched page held for it.
      const result = { ...judgement.result, credits: Math.min(judgement.result.credits, PRICES.freshPage.credits) };
      await writePage(deps.writer, check, result);
      if (judgement.snapshot) await recordMonitorSnapshot(deps.writer, check.tenant, monitor.id, url, judgement.snapshot);
      charged += result.credits;
      results.push(result);
      await extendRunning(deps.state, monitor.id);
      await worker.extend(RUNNING_TTL_MS);
    }, signal);
  } finally {
    await deps.keys.settle(account, held, Math.min(charged, held), { requestId: check.id, op: 'monitorRun' });
  }
  // Stopped mid-check (the pool stops): left `running`, resumed by the frontier's sweep.
  if (signal.aborted) return { kind: 'retry', code: 'service_unavailable', message: 'the classifier stopped during the check' };
  const completed: CheckRecord = {
    ...running,
    status: 'completed',
    finishedAtMs: now(),
    counts: countsOf(results),
    creditsUsed: results.reduce((sum, r) => sum + r.credits, 0),
  };
  await writeCheck(deps.writer, completed);
  deps.log.debug({ monitorId: monitor.id, checkId: check.id, counts: completed.counts }, 'monitor check completed');
  return { kind: 'ack', ...(monitor.sealedWebhook && worthNotifying(completed) ? { emit: [checkedEvent(monitor, completed)] } : {}) };
}
