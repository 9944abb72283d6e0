/**
 * Responsiveness under hostile work: `probing(base, key, work)` runs `work` while asking
 * GET /v1/templates every `intervalMs`, and gives back every probe's time in ms beside the
 * work's result (each probe must answer 200).
 */
import { expect } from 'vitest';

export async function probing<T>(base: string, key: string, work: () => Promise<T>, intervalMs = 50): Promise<{ result: T; probes: number[] }> {
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
  try {
    return { result: await work(), probes };
  } finally {
    done = true;
    await prober;
  }
}
