/**
 * Responsiveness under hostile work: `probing(base, key, work)` runs `work` while asking
 * GET /v1/templates every `intervalMs`, and gives back every probe's time in ms and the work's
 * own time beside its result (each probe must answer 200). `expectResponsive` judges them.
 */
import { expect } from 'vitest';

export async function probing<T>(base: string, key: string, work: () => Promise<T>, intervalMs = 50): Promise<{ result: T; probes: number[]; ms: number }> {
  const probes: number[] = [];
  let done = false;
  const prober = (async () => {
    while (!done) {
      const started = performance.now();
      const res = await fetch(`${base}/v1/templates`, { headers: { authorization: `Bearer ${key}` } });
      await res.arrayBuffer();
      expect(res.status).toBe(200);
      probes.push(performance.now() - started);
      await new Promise((resolve) => setTimeout(resolve, intervalMs));
    }
  })();
  const started = performance.now();
  try {
    const result = await work();
    return { result, probes, ms: performance.now() - started };
  } finally {
    done = true;
    await prober;
  }
}

/**
 * The gateway kept answering while the work ran: no probe took longer than `floorMs` or a
 * quarter of the work's own time, whichever is more. A service whose event loop the work held
 * makes a probe wait about as long as the work; a busy machine slows the work as much as the
 * probes, so the bound grows with it rather than failing a loaded CI run on a fixed figure.
 */
export function expectResponsive(probes: readonly number[], workMs: number, floorMs: number): void {
  const slowest = Math.max(...probes);
  expect(slowest, `slowest of ${probes.length} probes against the work's ${Math.round(workMs)} ms`).toBeLessThan(Math.max(floorMs, workMs / 4));
}
