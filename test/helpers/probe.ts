/**
 * Responsiveness under hostile work: `probing(base, key, work)` starts `work`, then asks
 * GET /v1/templates again and again, `intervalMs` apart (each probe must answer 200), and
 * gives back the work's result beside `during`: the probes answered while the work was still
 * running (every probe is sent after it began; one answered after it ended is not counted).
 * `expectResponsive` judges them. Nothing is timed: how fast the service answers is bench/'s.
 */
import { expect } from 'vitest';

export interface Probed<T> {
  readonly result: T;
  /** Probes answered while the work was still running. */
  readonly during: number;
  /** Probes answered in all. */
  readonly probes: number;
}

export async function probing<T>(base: string, key: string, work: () => Promise<T>, intervalMs = 50): Promise<Probed<T>> {
  let running = true;
  let during = 0;
  let probes = 0;
  const pending = work().finally(() => void (running = false));
  const prober = (async () => {
    while (running) {
      const res = await fetch(`${base}/v1/templates`, { headers: { authorization: `Bearer ${key}` } });
      await res.arrayBuffer();
      expect(res.status).toBe(200);
      probes++;
      if (running) during++;
      await new Promise((resolve) => setTimeout(resolve, intervalMs));
    }
  })();
  try {
    return { result: await pending, during, probes };
  } finally {
    running = false;
    await prober;
  }
}

/** Probes answered while the work ran that show the service kept answering throughout rather than at one moment. */
export const RESPONSIVE_PROBES = 3;

/**
 * The service kept answering while the work ran: RESPONSIVE_PROBES probes, one after the
 * other, were answered before the work's own answer. A service whose event loop the work held
 * from start to end answers a probe sent meanwhile only once it is let go: at most the probe
 * sent before the hold began and the one let go with it come back before the work's answer.
 */
export function expectResponsive(probed: Pick<Probed<unknown>, 'during' | 'probes'>, atLeast = RESPONSIVE_PROBES): void {
  expect(probed.during, `probes answered while the work ran (of ${probed.probes} sent)`).toBeGreaterThanOrEqual(atLeast);
}
