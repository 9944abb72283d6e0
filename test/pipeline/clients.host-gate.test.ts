/**
 * pipeline/clients/host-gate.ts on its own: slots per host, waiting in order, giving up at the
 * deadline or on abort, a pause that refuses at once what cannot wait for it and admits the
 * rest when it ends (even with a clock that stands still), and hosts kept apart.
 */
import { describe, expect, it, vi } from 'vitest';
import { GateClosed, HostGate } from '../../pipeline/clients/host-gate.js';
import { track } from '../helpers/wait.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Lets the microtasks queued now run (no timer, no I/O). */
async function microtasks(): Promise<void> {
  for (let i = 0; i < 10; i++) await Promise.resolve();
}

/** A task that stays open until `release()` is called. */
function held() {
  let release = () => {};
  const done = new Promise<void>((r) => (release = r));
  return { done, release: () => release() };
}

describe('pipeline/clients/host-gate', () => {
  it('runs at most `concurrency` tasks per host, the rest in arrival order, hosts apart', async () => {
    const gate = new HostGate(2);
    const order: string[] = [];
    const tasks = Array.from({ length: 4 }, () => held());
    const far = Date.now() + 10_000;
    const runs = tasks.map((t, i) => gate.run('a', far, undefined, async () => {
      order.push(`start ${i}`);
      await t.done;
    }));
    const other = gate.run('b', far, undefined, async () => order.push('b'));
    await sleep(10);
    expect(order).toEqual(['start 0', 'start 1', 'b']);
    expect(gate.activeAt('a')).toBe(2);
    tasks[1]?.release();
    await sleep(10);
    expect(order).toEqual(['start 0', 'start 1', 'b', 'start 2']);
    for (const t of tasks) t.release();
    await Promise.all([...runs, other]);
    expect(order.at(-1)).toBe('start 3');
    expect(gate.activeAt('a')).toBe(0);
  });

  it("gives up on a waiter at its deadline, and on abort with the signal's reason", async () => {
    const gate = new HostGate(1);
    const blocker = held();
    const running = gate.run('a', Date.now() + 10_000, undefined, () => blocker.done);
    const late = gate.run('a', Date.now() + 50, undefined, async () => 'never');
    await expect(late).rejects.toMatchObject({ name: 'GateClosed', reason: 'deadline' });
    const controller = new AbortController();
    const aborted = gate.run('a', Date.now() + 10_000, controller.signal, async () => 'never');
    controller.abort(new Error('stop'));
    await expect(aborted).rejects.toThrow('stop');
    blocker.release();
    await running;
    expect(await gate.run('a', Date.now() + 1_000, undefined, async () => 'free again')).toBe('free again');
  });

  it('pauses a host: refuses at once what cannot wait, admits the rest when the pause ends', async () => {
    // The gate's clock and its timers on one fake clock: "at once" is before any timer is
    // advanced, and "when the pause ends" is not one millisecond sooner.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    try {
      const gate = new HostGate(5);
      gate.pause('a', 200);
      expect(gate.pausedFor('a')).toBe(200);
      let ran = false;
      const refused = gate.run('a', Date.now() + 50, undefined, async () => {
        ran = true;
        return 'ran';
      });
      const outcome = track(refused);
      await microtasks();
      expect(outcome.settled).toBe(true); // settled while no timer has fired
      expect(outcome.error).toBeInstanceOf(GateClosed);
      expect(outcome.error).toMatchObject({ reason: 'paused', waitMs: 200 });
      expect(ran).toBe(false);
      expect(await gate.run('b', Date.now() + 50, undefined, async () => 'other host')).toBe('other host');
      const started = Date.now();
      let admittedAt: number | null = null;
      const admitted = gate.run('a', started + 5_000, undefined, async () => {
        admittedAt = Date.now();
        return 'after the pause';
      });
      await vi.advanceTimersByTimeAsync(199);
      expect(admittedAt).toBeNull();
      expect(gate.pausedFor('a')).toBe(1);
      await vi.advanceTimersByTimeAsync(1);
      expect(await admitted).toBe('after the pause');
      expect(admittedAt).toBe(started + 200);
      expect(gate.pausedFor('a')).toBe(0);
    } finally {
      vi.useRealTimers();
    }
  });

  it('ends a pause when its timer fires, whatever an injected clock says', async () => {
    const frozen = 1_000_000;
    const gate = new HostGate(1, () => frozen);
    gate.pause('a', 100);
    expect(await gate.run('a', frozen + 5_000, undefined, async () => 'after the pause')).toBe('after the pause');
  });

  it('refuses waiters already queued whose deadline falls inside a new pause', async () => {
    const gate = new HostGate(1);
    const blocker = held();
    const running = gate.run('a', Date.now() + 10_000, undefined, () => blocker.done);
    const short = gate.run('a', Date.now() + 300, undefined, async () => 'never');
    const long = gate.run('a', Date.now() + 10_000, undefined, async () => 'later');
    gate.pause('a', 1_000);
    await expect(short).rejects.toMatchObject({ reason: 'paused' });
    blocker.release();
    await running;
    expect(await long).toBe('later');
  });
});
