/**
 * Runs one kind of schedule (schedules/monitors.ts, schedules/watches.ts) in a frontier
 * process: the rebuild from the store and the resume of interrupted runs at start-up, then
 * the rebuild every REBUILD_MS, the resume every RESUME_MS and the due runs every TICK_MS.
 *
 * Nothing is started before the first rebuild and resume have finished. The state may hold
 * due times the store has moved past: a durable state of one process (STATE=file) loses the
 * last moments before a kill, so it can hold a watch still due at the time whose run the store
 * already has, and no slot for it. Started first, that run would be started twice; rebuilt
 * first, it is due one interval on and the interrupted run is resumed. A first rebuild that
 * fails is tried again FIRST_RETRY_MS later; a first resume that fails does not hold the
 * schedules back (it is tried again every RESUME_MS).
 */
import type { AnyEmission } from '../../../pipeline/runtime/events.js';
import { REBUILD_MS, RESUME_MS, TICK_MS, type ScheduleDeps } from './monitors.js';

/** How long after a failed first rebuild it is tried again (ms). */
export const FIRST_RETRY_MS = 5_000;

/** The three steps of a schedule. */
export interface ScheduleSteps {
  rebuild(deps: ScheduleDeps): Promise<number>;
  resume(deps: ScheduleDeps): Promise<AnyEmission[]>;
  start(deps: ScheduleDeps, budget: number): Promise<AnyEmission[]>;
}

export interface Emitter {
  emit(emissions: AnyEmission[]): Promise<unknown>;
}

/**
 * Runs `steps` until `signal` aborts: one step of each kind at a time; a failed step is
 * logged and tried again on its next round. `stop()` clears the timers and waits for the
 * steps under way.
 */
export function runSchedules(events: Emitter, kind: string, steps: ScheduleSteps, deps: ScheduleDeps, signal: AbortSignal): { stop(): Promise<void> } {
  const perTick = Math.max(1, Math.ceil((deps.startsPerSecond * TICK_MS) / 1000));
  const running = new Map<string, Promise<void>>();
  let ready = false;
  const once = (what: string, step: () => Promise<void>) => {
    if (running.has(what) || signal.aborted) return;
    const run = step()
      .catch((error: unknown) => {
        if (!signal.aborted) deps.log.warn({ err: error }, `${kind} schedules: could not ${what}; trying again`);
      })
      .finally(() => running.delete(what));
    running.set(what, run);
  };
  const emit = async (emissions: AnyEmission[]) => {
    if (emissions.length > 0) await events.emit(emissions);
  };
  let firstTried = 0;
  const first = () => {
    firstTried = Date.now();
    once('rebuild the schedules and resume runs', async () => {
      await steps.rebuild(deps);
      try {
        await emit(await steps.resume(deps));
      } finally {
        // A resume that failed is tried again in RESUME_MS; the schedules are rebuilt.
        ready = true;
      }
    });
  };
  const rebuild = () => once('rebuild the schedules', () => steps.rebuild(deps).then(() => undefined));
  const resume = () => ready && once('resume interrupted runs', async () => emit(await steps.resume(deps)));
  const tick = () => {
    if (ready) once('start due runs', async () => emit(await steps.start(deps, perTick)));
    else if (Date.now() - firstTried >= FIRST_RETRY_MS) first();
  };
  first();
  const timers = [setInterval(rebuild, REBUILD_MS), setInterval(resume, RESUME_MS), setInterval(tick, TICK_MS)];
  for (const timer of timers) timer.unref();
  return {
    async stop() {
      for (const timer of timers) clearInterval(timer);
      await Promise.all(running.values());
    },
  };
}
