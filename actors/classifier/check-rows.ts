/**
 * A monitor check's rows and latches: its final row, its `running` row written once a reader
 * could see the check running, the writes left behind its answer, and the latch and lock held
 * until those landed.
 */
import { writeCheck, type CheckRecord, type CheckStatus } from '../../pipeline/monitors/checks.js';
import { releaseRunning } from '../../pipeline/monitors/schedule.js';
import type { Lock } from '../../pipeline/runtime/state/state.js';
import type { CheckDeps } from './check-deps.js';

export async function finish(deps: CheckDeps, check: CheckRecord, status: CheckStatus, reason: string): Promise<CheckRecord> {
  const now = (deps.now ?? Date.now)();
  const final: CheckRecord = { ...check, status, reason, finishedAtMs: now, startedAtMs: check.startedAtMs ?? now };
  await writeCheck(deps.writer, final);
  return final;
}

/**
 * A check whose rows are written behind its answer holds its latch and its lock until they
 * landed: the monitor's next check starts after them. Rows that could not be written leave the
 * check unfinished in the store (the frontier's sweep resumes it once the latch is free, when
 * its queued row landed; else the schedule rebuilt from the store runs its due time again).
 */
export function releaseOnceLanded(deps: CheckDeps, behind: Promise<void>, monitorId: string, checkId: string, worker: Lock): void {
  void behind
    .catch((error: unknown) => deps.log.warn({ err: error, monitorId, checkId }, 'rows written behind a check were not written'))
    .then(() => Promise.all([releaseRunning(deps.state, monitorId, checkId), worker.release()]))
    .catch((error: unknown) => deps.log.warn({ err: error, monitorId, checkId }, 'the running latch of a check was not released; it expires'));
}

/** A check this long still running gets its `running` row; one done sooner goes from queued to final. */
export const RUNNING_ROW_AFTER_MS = 2_000;

/**
 * The check's `running` row, written once a reader could see the check running: when it has
 * run RUNNING_ROW_AFTER_MS, or when a page's result is about to land with pages still to go.
 * A one-page check that ends quickly goes from queued to its final row. `settle` stops the
 * timer and awaits the write.
 */
export function runningRow(deps: CheckDeps, running: CheckRecord): { beforePage(pagesLeft: number, needed?: boolean): Promise<void>; landed(): boolean; settle(): Promise<void> } {
  let written: Promise<void> | null = null;
  let landed = false;
  const write = () =>
    (written ??= writeCheck(deps.writer, running).then(
      () => void (landed = true),
      (error: unknown) => deps.log.warn({ err: error, checkId: running.id }, 'the running row of a check was not written'),
    ));
  const timer = setTimeout(write, RUNNING_ROW_AFTER_MS);
  return {
    async beforePage(pagesLeft, needed = false) {
      if (pagesLeft > 0 || needed) await write();
    },
    landed: () => landed,
    async settle() {
      clearTimeout(timer);
      await written;
    },
  };
}

/** A write behind the answer: marked handled at once (awaited later, or its failure logged by releaseOnceLanded). */
export function behindWrite(landing: Promise<void>[], write: Promise<void>): void {
  void write.catch(() => undefined);
  landing.push(write);
}
