/**
 * actors/frontier/schedules/run.ts: the order of a schedule's steps in a frontier process.
 * No due run is started before the first rebuild from the store and the resume of interrupted
 * runs have finished (the state may hold due times the store has moved past); a first rebuild
 * that fails holds the starts back and is tried again FIRST_RETRY_MS later, not at every
 * tick; a first resume that fails does not hold them back. Fake timers, steps that record.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { FIRST_RETRY_MS, runSchedules, type ScheduleSteps } from '../../actors/frontier/schedules/run.js';
import { TICK_MS, type ScheduleDeps } from '../../actors/frontier/schedules/monitors.js';
import type { AnyEmission } from '../../pipeline/runtime/events.js';
import { quietLog } from '../helpers/clickhouse.js';

const deps = { log: quietLog, startsPerSecond: 20 } as unknown as ScheduleDeps;
const emission = (name: string) => ({ topic: 'watchCollectRequested', name }) as unknown as AnyEmission;

/** Steps that record each call; the rebuild waits for the test when `gate` is set. */
function recording() {
  const calls: string[] = [];
  const emitted: AnyEmission[][] = [];
  let gate: { promise: Promise<void>; open: () => void; fail: (e: Error) => void } | null = null;
  const hold = () => {
    let open!: () => void;
    let fail!: (e: Error) => void;
    const promise = new Promise<void>((resolve, reject) => {
      open = resolve;
      fail = reject;
    });
    gate = { promise, open, fail };
    return gate;
  };
  const steps: ScheduleSteps = {
    async rebuild() {
      calls.push('rebuild');
      const g = gate;
      gate = null;
      if (g) await g.promise;
      return 1;
    },
    async resume() {
      calls.push('resume');
      return [emission('resumed')];
    },
    async start(_deps, budget) {
      calls.push(`start ${budget}`);
      return [emission('started')];
    },
  };
  const events = { emit: async (e: AnyEmission[]) => void emitted.push(e) };
  return { calls, emitted, steps, events, hold };
}

describe('actors/frontier schedules: the order of the steps', () => {
  let stopping: AbortController;
  beforeEach(() => {
    vi.useFakeTimers();
    stopping = new AbortController();
  });
  afterEach(() => {
    stopping.abort();
    vi.useRealTimers();
  });

  it('starts no due run until the first rebuild and resume are done, then starts them every tick', async () => {
    const r = recording();
    const gate = r.hold();
    const run = runSchedules(r.events, 'watch', r.steps, deps, stopping.signal);
    await vi.advanceTimersByTimeAsync(TICK_MS * 8);
    // A slow first rebuild: ticks pass, nothing is started and the rebuild is not asked again.
    expect(r.calls).toEqual(['rebuild']);
    gate.open();
    await vi.advanceTimersByTimeAsync(0);
    expect(r.calls).toEqual(['rebuild', 'resume']);
    expect(r.emitted.map((e) => (e[0] as unknown as { name: string }).name)).toEqual(['resumed']);
    await vi.advanceTimersByTimeAsync(TICK_MS * 2);
    // 20 starts a second: 5 a tick of 250 ms.
    expect(r.calls).toEqual(['rebuild', 'resume', 'start 5', 'start 5']);
    expect(r.emitted).toHaveLength(3);
    await run.stop();
  });

  it('tries a failed first rebuild again FIRST_RETRY_MS later, and starts nothing until it succeeds', async () => {
    const r = recording();
    const gate = r.hold();
    const run = runSchedules(r.events, 'monitor', r.steps, deps, stopping.signal);
    gate.fail(new Error('the store is not up yet'));
    await vi.advanceTimersByTimeAsync(FIRST_RETRY_MS - TICK_MS);
    expect(r.calls).toEqual(['rebuild']);
    await vi.advanceTimersByTimeAsync(TICK_MS);
    expect(r.calls).toEqual(['rebuild', 'rebuild', 'resume']);
    await vi.advanceTimersByTimeAsync(TICK_MS);
    expect(r.calls).toEqual(['rebuild', 'rebuild', 'resume', 'start 5']);
    await run.stop();
  });

  it('starts due runs after a first resume that failed (it is tried again later)', async () => {
    const r = recording();
    r.steps.resume = async () => {
      r.calls.push('resume');
      throw new Error('the bus is not up yet');
    };
    const run = runSchedules(r.events, 'watch', r.steps, deps, stopping.signal);
    await vi.advanceTimersByTimeAsync(TICK_MS);
    expect(r.calls).toEqual(['rebuild', 'resume', 'start 5']);
    await run.stop();
  });

  it('stops: no step runs after stop()', async () => {
    const r = recording();
    const run = runSchedules(r.events, 'watch', r.steps, deps, stopping.signal);
    await vi.advanceTimersByTimeAsync(TICK_MS);
    await run.stop();
    const seen = r.calls.length;
    await vi.advanceTimersByTimeAsync(TICK_MS * 10);
    expect(r.calls).toHaveLength(seen);
  });
});
