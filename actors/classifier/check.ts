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
 * - Read once: the event carries the check as queued and what the check needs of its monitor
 *   (whoever queued it read the monitor); the store is read only for a resumed check, a v1
 *   event, or an event whose check no longer holds the running latch (it may come twice).
 * - Safe to receive twice and to resume: a check already final is acknowledged and nothing
 *   else; one worker at a time runs a check (a lock on its id, extended as pages are judged);
 *   a check resumed after a crash (the frontier sends its event again, same id) reads only the
 *   pages it had not judged; a check that never started looks none up. A page's result row is
 *   written before its snapshot, and a new snapshot of a page to report only once a row of the
 *   check landed: the row the gateway stored for a manual run, the store's for a resumed
 *   check, else its `running` row (a scheduled check's `queued` row follows its event,
 *   pipeline/monitors/checks.ts QUEUED_ROWS), written first. A crash in between reports the
 *   change again on the next check rather than never.
 * - Rows for states a reader can see: `running` once a page's result lands with pages still
 *   to go or a new snapshot of a page to report is written, or once the check has run
 *   RUNNING_ROW_AFTER_MS; a quick one-page check with nothing to report goes from `queued` to
 *   its final row.
 * - Rows nobody awaits are written behind: a scheduled check's `same` pages (their rows, and
 *   the new snapshot of a page that moved only by noise, judged from its digest without a
 *   store read) wait for others' batches (UNCHANGED_ROWS), and when every page was `same` the
 *   final row follows them behind the answer, the running latch held until they landed (the
 *   next check of the monitor starts after them; rows that fail leave the check to the
 *   frontier's sweep). Anything to report, and a manual run, is written at the writer's pace
 *   and landed before the answer, so the check a webhook or POST /run names is there to read.
 * - The pages are read without keeping a copy in the page cache (checkScrapeOptions).
 * - An unreachable page is that page's `error`, never a failed check.
 * - When the check found a page new, changed, removed or failing and the monitor has a
 *   webhook, a MonitorChecked goes to the notifier, which delivers it on its own time: a
 *   receiver that is down never holds the next check. It carries the webhook body, built here
 *   from the pages just judged (pipeline/monitors/notice.ts).
 * - A manual run (POST /v1/monitor/{id}/run) awaits its check: the event names a reply address,
 *   and the final check is the Reply's data.
 */
import type { KeyRecord } from '../../pipeline/keys/registry.js';
import { countsOf, isFinal, judgedPages, queuedCheck, readCheck, writeCheck, writePage, type CheckRecord, type PageResult, UNCHANGED_ROWS } from '../../pipeline/monitors/checks.js';
import { readMonitor } from '../../pipeline/monitors/record.js';
import { monitorWebhookBody } from '../../pipeline/monitors/notice.js';
import { extendRunning, releaseRunning, runningCheck, RUNNING_TTL_MS, scheduledMonitor, takeRunning } from '../../pipeline/monitors/schedule.js';
import type { PageSnapshot } from '../../pipeline/pages/changes.js';
import type { AnyEmission } from '../../pipeline/runtime/events.js';
import type { Outcome } from '../../pipeline/runtime/pool.js';
import { mapBounded } from '../../pipeline/runtime/bounded.js';
import { replyTo } from '../../pipeline/runtime/request-reply.js';
import type { Lock } from '../../pipeline/runtime/state/state.js';
import { PRICES } from '../../schemas/api/prices.js';
import { HEADERS } from '../../schemas/topics.js';
import type { CheckDeps, CheckMonitor, MonitorCheckRequested } from './check-deps.js';
import { keepDigestOf, previousOf, readPage, recordSnapshot } from './check-pages.js';
import { behindWrite, finish, releaseOnceLanded, runningRow } from './check-rows.js';
import { judgeMovedByNoise, judgePage, readSnapshot } from './judge.js';

export type { CheckDeps, MonitorCheckRequested } from './check-deps.js';
export { checkScrapeOptions } from './check-pages.js';
export { RUNNING_ROW_AFTER_MS } from './check-rows.js';


/** Whether the check found something the webhook is for: a page new, changed, removed or failing. */
export function worthNotifying(check: Pick<CheckRecord, 'counts'>): boolean {
  const c = check.counts;
  return c.new + c.changed + c.removed + c.error > 0;
}

/** What the notifier delivers, carried on the event: the webhook as stored and the body, built from what was just judged. */
function checkedEvent(monitor: CheckMonitor & { sealedWebhook: string }, check: CheckRecord, pages: readonly PageResult[]): AnyEmission {
  const ordered = [...pages].sort((a, b) => a.position - b.position);
  const body = monitorWebhookBody({ ...monitor, url: null, urls: check.urls }, check, ordered);
  return {
    topic: 'monitorEvents',
    key: monitor.id,
    headers: { [HEADERS.requestId]: check.id },
    value: { tenant: monitor.tenant, monitorId: monitor.id, checkId: check.id, createdAtMs: Date.now(), sealedWebhook: monitor.sealedWebhook, body },
  };
}

/** The answer to a manual run awaiting its check (none when nobody awaits it): the final check. */
function answer(event: MonitorCheckRequested, check: CheckRecord): AnyEmission[] {
  return replyTo(event, { ok: true, data: JSON.stringify(check), errorCode: null, errorMessage: null, credits: 0, source: 'classifier' });
}


interface Started {
  readonly check: CheckRecord;
  readonly monitor: CheckMonitor | null;
  /** Pages may have been judged already (a resumed check): read which before reading any. */
  readonly resumed: boolean;
}

/**
 * The check and its monitor as queued, from the event, when the event carries them and the
 * check holds its monitor's running latch (whoever queued it took it). Otherwise (a resumed
 * check, a v1 event, or a latch gone: the event may come again for a check already final)
 * from the store, as the truth.
 */
async function startedCheck(event: MonitorCheckRequested, deps: CheckDeps): Promise<Started | null> {
  const queued = event.check;
  if (queued && !queued.resumed && event.monitor && (await runningCheck(deps.state, event.monitorId)) === event.checkId) {
    const fields = { tenant: event.tenant, monitorId: event.monitorId, trigger: queued.trigger === 'manual' ? 'manual' : 'scheduled', urls: queued.urls } as const;
    const check = queuedCheck({ ...fields, id: event.checkId, scheduledAtMs: queued.scheduledAtMs, nowMs: queued.queuedAtMs });
    // Deleting a monitor takes it off the schedule: a state read, not a store read, tells.
    const monitor = (await scheduledMonitor(deps.state, event.monitorId)) ? { id: event.monitorId, tenant: event.tenant, ...event.monitor } : null;
    return { check, monitor, resumed: false };
  }
  const check = await readCheck(deps.store, event.tenant, event.monitorId, event.checkId);
  if (!check) return null;
  return { check, monitor: isFinal(check.status) ? null : await readMonitor(deps.store, event.tenant, event.monitorId), resumed: true };
}

export async function handleCheckRequested(event: MonitorCheckRequested, deps: CheckDeps, signal: AbortSignal): Promise<Outcome> {
  const now = deps.now ?? Date.now;
  const started = await startedCheck(event, deps);
  if (!started) return { kind: 'ack' };
  const { check, monitor } = started;
  if (isFinal(check.status)) return { kind: 'ack', emit: answer(event, check) };
  if (!monitor) {
    const final = await finish(deps, check, 'skipped_deleted', 'the monitor was deleted');
    await releaseRunning(deps.state, check.monitorId, check.id);
    return { kind: 'ack', emit: answer(event, final) };
  }
  const holder = await takeRunning(deps.state, monitor.id, check.id);
  if (holder !== null) {
    const final = await finish(deps, check, 'skipped_overlap', `check ${holder} of this monitor is still running`);
    return { kind: 'ack', emit: answer(event, final) };
  }
  // The event sent twice (a resume while the first worker still runs it): one worker runs it.
  const worker = await deps.state.lock(workerLock(check.id), RUNNING_TTL_MS);
  if (!worker) return { kind: 'ack' };
  let behind: Promise<void> | null = null;
  try {
    const ran = await runCheck(deps, { ...started, monitor }, event, now, signal, worker);
    behind = ran.behind;
    return ran.outcome;
  } finally {
    if (behind) releaseOnceLanded(deps, behind, monitor.id, check.id, worker);
    else {
      if (!signal.aborted) await releaseRunning(deps.state, monitor.id, check.id);
      await worker.release();
    }
  }
}

const workerLock = (checkId: string) => `monitor-check:${checkId}`;

/** Holds the credits of the pages still to read; the reason the check is skipped when the key cannot. */
async function hold(deps: CheckDeps, check: CheckRecord, pages: number): Promise<{ account: KeyRecord; held: number } | { reason: string }> {
  const held = pages * PRICES.freshPage.credits;
  const account = await deps.keys.get(check.tenant);
  if (account && !account.revoked && (await deps.keys.reserve(account, held))) return { account, held };
  return { reason: !account || account.revoked ? 'the key is revoked' : `insufficient_credits: the check needs ${held} credits; the key's balance does not cover them` };
}

/**
 * What a check did: its outcome, and when its rows are written behind its answer (a scheduled
 * check that found every page `same`), the promise of their landing.
 */
interface Ran {
  readonly outcome: Outcome;
  readonly behind: Promise<void> | null;
}

async function runCheck(deps: CheckDeps, started: Started & { monitor: CheckMonitor }, event: MonitorCheckRequested, now: () => number, signal: AbortSignal, worker: Lock): Promise<Ran> {
  const { check, monitor } = started;
  // A check that never started has judged nothing: no lookup.
  const done = started.resumed ? await judgedPages(deps.store, check) : [];
  const judged = new Set(done.map((p) => p.url));
  const todo = check.urls.map((url, position) => ({ url, position })).filter((p) => !judged.has(p.url));
  const credits = await hold(deps, check, todo.length);
  if ('reason' in credits) {
    const final = await finish(deps, check, 'skipped_no_credits', credits.reason);
    deps.log.info({ monitorId: monitor.id, checkId: check.id }, 'monitor check skipped: no credits');
    return { outcome: { kind: 'ack', emit: answer(event, final) }, behind: null };
  }
  const running: CheckRecord = { ...check, status: 'running', startedAtMs: check.startedAtMs ?? now() };
  const row = runningRow(deps, running);
  // A row of the check is stored already: a resumed check's (read from the store) or a manual run's (the gateway's, landed before its event).
  const stored = started.resumed || check.trigger === 'manual';
  const results: PageResult[] = [...done];
  let charged = 0;
  let judgedNow = 0;
  // A scheduled check's `same` pages: their rows wait for others' batches (UNCHANGED_ROWS), awaited below or behind the answer.
  const landing: Promise<void>[] = [];
  let lazyPages = 0;
  // New snapshots of pages to report whose running row could not be written: held until the final row landed.
  const held: { url: string; snapshot: PageSnapshot }[] = [];
  try {
    await mapBounded(todo, deps.pageConcurrency, async ({ url, position }) => {
      const reply = await readPage(deps, check, url, position, signal);
      if (signal.aborted) return;
      const page = { url, position, checkedAtMs: now() };
      const current = readSnapshot(reply, page.checkedAtMs);
      const known = await previousOf(deps, monitor, url, current);
      const judgement = known.movedByNoise ? judgeMovedByNoise(page, reply, current) : judgePage(page, known.previous, reply, current);
      // A page costs what its scrape cost, never more than the fetched page held for it.
      const result = { ...judgement.result, credits: Math.min(judgement.result.credits, PRICES.freshPage.credits) };
      judgedNow += 1;
      const { snapshot } = judgement;
      const lazy = check.trigger === 'scheduled' && result.status === 'same';
      // A new snapshot of a page to report waits for a row of the check: the running row, unless one is stored.
      await row.beforePage(todo.length - judgedNow, !lazy && snapshot !== null && !stored);
      if (lazy) {
        lazyPages += 1;
        behindWrite(landing, writePage(deps.writer, check, result, UNCHANGED_ROWS));
        if (snapshot) behindWrite(landing, recordSnapshot(deps, check, url, snapshot, UNCHANGED_ROWS));
      } else {
        await writePage(deps.writer, check, result);
        if (snapshot && (stored || row.landed())) await recordSnapshot(deps, check, url, snapshot);
        else if (snapshot) held.push({ url, snapshot });
      }
      if (!snapshot) await keepDigestOf(deps, monitor.id, url, known);
      charged += result.credits;
      results.push(result);
      await extendRunning(deps.state, monitor.id);
      await worker.extend(RUNNING_TTL_MS);
    }, signal);
  } finally {
    await row.settle();
    await deps.keys.settle(credits.account, credits.held, Math.min(charged, credits.held), { requestId: check.id, op: 'monitorRun' });
  }
  // Stopped mid-check (the pool stops): left unfinished, resumed by the frontier's sweep.
  if (signal.aborted) return { outcome: { kind: 'retry', code: 'service_unavailable', message: 'the classifier stopped during the check' }, behind: null };
  const completed: CheckRecord = {
    ...running,
    status: 'completed',
    finishedAtMs: now(),
    counts: countsOf(results),
    creditsUsed: results.reduce((sum, r) => sum + r.credits, 0),
  };
  deps.log.debug({ monitorId: monitor.id, checkId: check.id, counts: completed.counts }, 'monitor check completed');
  // Nothing to report and every row lazy: the final row follows the pages' behind the answer.
  if (check.trigger === 'scheduled' && lazyPages === todo.length && !worthNotifying(completed)) {
    const behind = Promise.all(landing).then(() => writeCheck(deps.writer, completed, UNCHANGED_ROWS));
    return { outcome: { kind: 'ack', emit: answer(event, completed) }, behind };
  }
  await Promise.all(landing);
  await writeCheck(deps.writer, completed);
  await Promise.all(held.map((h) => recordSnapshot(deps, check, h.url, h.snapshot)));
  const notify = monitor.sealedWebhook !== null && worthNotifying(completed) ? [checkedEvent({ ...monitor, sealedWebhook: monitor.sealedWebhook }, completed, results)] : [];
  return { outcome: { kind: 'ack', emit: [...notify, ...answer(event, completed)] }, behind: null };
}
