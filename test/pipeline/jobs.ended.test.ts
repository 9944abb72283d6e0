/**
 * pipeline/jobs/ended.ts: a job's end latch as the pools read it, at most once a period per
 * job however many of its pages ask, and a watch that aborts a job's pages in flight once the
 * latch is taken. The clock of `ended` is injected; a watch's timer is a real one, short here.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { JobEnds, JOB_END_REFRESH_MS } from '../../pipeline/jobs/ended.js';
import { jobEndKey } from '../../pipeline/jobs/record.js';
import { MemoryState } from '../../pipeline/runtime/state/memory.js';
import type { State } from '../../pipeline/runtime/state/state.js';

/** A MemoryState whose end-latch reads are counted. */
function countingState(): { state: MemoryState; reads: () => number; view: Pick<State, 'get'> } {
  const state = new MemoryState();
  let reads = 0;
  return {
    state,
    reads: () => reads,
    view: {
      get: (key: string) => {
        reads++;
        return state.get(key);
      },
    },
  };
}

const cancel = (state: MemoryState, id: string) => state.setIfAbsent(jobEndKey(id), JSON.stringify({ status: 'cancelled', error: '' }));
const until = async (check: () => boolean, ms = 5_000) => {
  const end = performance.now() + ms;
  while (!check()) {
    if (performance.now() > end) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
};

describe('pipeline/jobs/ended', () => {
  const open: JobEnds[] = [];
  afterEach(() => {
    for (const ends of open.splice(0)) ends.close();
  });

  it('reads a running job once a period however many pages ask, and an ended one never again', async () => {
    const { state, reads, view } = countingState();
    let now = 1_000_000;
    const ends = new JobEnds(view, { now: () => now });
    expect(await Promise.all([ends.ended('job-a'), ends.ended('job-a'), ends.ended('job-a')])).toEqual([null, null, null]);
    expect(reads()).toBe(1);
    await cancel(state, 'job-a');
    now += JOB_END_REFRESH_MS - 1;
    expect(await ends.ended('job-a')).toBeNull();
    expect(reads()).toBe(1);
    now += 1;
    expect(await ends.ended('job-a')).toBe('cancelled');
    expect(reads()).toBe(2);
    now += 10 * JOB_END_REFRESH_MS;
    expect(await ends.ended('job-a')).toBe('cancelled');
    expect(reads()).toBe(2);
    // Another job is read on its own.
    expect(await ends.ended('job-b')).toBeNull();
    expect(reads()).toBe(3);
  });

  it('names the status the latch holds, and counts a latch it cannot read as failed', async () => {
    const state = new MemoryState();
    const ends = new JobEnds(state);
    await state.setIfAbsent(jobEndKey('job-f'), JSON.stringify({ status: 'failed', error: 'out of credits' }));
    await state.setIfAbsent(jobEndKey('job-x'), 'not json');
    expect(await ends.ended('job-f')).toBe('failed');
    expect(await ends.ended('job-x')).toBe('failed');
  });

  it('counts a job as running when state cannot be read', async () => {
    const ends = new JobEnds({ get: () => Promise.reject(new Error('state unavailable')) });
    expect(await ends.ended('job-a')).toBeNull();
  });

  it("aborts a job's pages in flight once it ends, and only that job's", async () => {
    const { state, view } = countingState();
    const ends = new JobEnds(view, { refreshMs: 20 });
    open.push(ends);
    const caller = new AbortController();
    const first = ends.watch('job-a', caller.signal);
    const second = ends.watch('job-a', caller.signal);
    const other = ends.watch('job-b', caller.signal);
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(first.signal.aborted).toBe(false);
    expect(first.ended()).toBeNull();
    await cancel(state, 'job-a');
    await until(() => first.signal.aborted && second.signal.aborted);
    expect(first.ended()).toBe('cancelled');
    expect(second.ended()).toBe('cancelled');
    expect(other.signal.aborted).toBe(false);
    expect(other.ended()).toBeNull();
    for (const watch of [first, second, other]) watch.release();
    expect(caller.signal.aborted).toBe(false);
  });

  it('aborts at once a page that starts after its watch saw the job end', async () => {
    const { state, view } = countingState();
    const ends = new JobEnds(view, { refreshMs: 10 });
    open.push(ends);
    const caller = new AbortController();
    const first = ends.watch('job-a', caller.signal);
    await cancel(state, 'job-a');
    await until(() => first.signal.aborted);
    const late = ends.watch('job-a', caller.signal);
    expect(late.signal.aborted).toBe(true);
    expect(late.ended()).toBe('cancelled');
    first.release();
    late.release();
  });

  it("passes the caller's abort on, and stops reading a job once its last page is released", async () => {
    const { reads, view } = countingState();
    const ends = new JobEnds(view, { refreshMs: 10 });
    open.push(ends);
    const caller = new AbortController();
    const watch = ends.watch('job-a', caller.signal);
    await until(() => reads() >= 2);
    caller.abort(new Error('pool stopping'));
    expect(watch.signal.aborted).toBe(true);
    expect(watch.ended()).toBeNull();
    watch.release();
    watch.release();
    const after = reads();
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(reads()).toBe(after);
  });
});
