/**
 * A monitor across a restart of the embedded process (`main.ts`, everything in one process,
 * memory state): the process is SIGKILLed in the middle of a check, then started again on the
 * same DATA_DIR. The schedule comes back from the store (the monitor's next check is still
 * one interval after its first), and the interrupted check is resumed, not lost and not run
 * twice: it completes once, with each page judged once, and the pages it had judged before
 * the kill are not read again. Paused, it stays paused across a restart that lost its
 * coordination state (the schedule rebuilt from the store), until it is resumed.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { page, startMonitorSite, type MonitorSite } from '../helpers/monitor-site.js';
import { startServer, type Server } from '../helpers/process.js';
import { until } from '../helpers/wait.js';

const API_KEY = 'e2e-monitors-restart-key-0123456789';
const WAIT = { timeoutMs: 60_000, intervalMs: 100 };

type Body = Record<string, any>;

describe('e2e/monitors: a restart in the middle of a check', () => {
  let site: MonitorSite;
  let dataDir: string;
  let server: Server | null = null;

  const env = () => ({ DATA_DIR: dataDir, API_KEY, FETCH_ALLOW_PRIVATE: 'true', MONITOR_PAGE_CONCURRENCY: '1' });

  async function call(method: string, path: string, body?: unknown): Promise<Body> {
    const res = await fetch(`${server?.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${API_KEY}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return (await res.json()) as Body;
  }

  beforeAll(async () => {
    site = await startMonitorSite();
    dataDir = mkdtempSync(join(tmpdir(), 'wds-monitor-restart-'));
  });

  afterAll(async () => {
    await server?.stop();
    await site?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('resumes the interrupted check once, and keeps the schedule, a pause included', async () => {
    // One page at a time: the first two are quick, the third holds the check long enough to kill it.
    site.set('/a', { html: page('A', '<p>First.</p>') });
    site.set('/b', { html: page('B', '<p>Second.</p>') });
    site.set('/slow', { html: page('Slow', '<p>Third.</p>'), delayMs: 4000 });
    server = await startServer(env(), 60_000);
    const monitor = (await call('POST', '/v1/monitor', { name: 'Across a restart', urls: ['/a', '/b', '/slow'].map((p) => `${site.origin}${p}`), intervalMinutes: 10 })).data;
    const nextCheckAt = monitor.nextCheckAt as string;

    // Kill it once the quick pages are judged and the slow one is being read.
    await until('two pages judged', async () => ((await call('GET', `/v1/monitor/${monitor.id}/checks`)).data.checks[0]?.pages.length ?? 0) >= 2 && site.hits('/slow') >= 1, WAIT);
    const [before] = (await call('GET', `/v1/monitor/${monitor.id}/checks`)).data.checks;
    expect(before.status).toBe('running');
    server.child.kill('SIGKILL');
    await server.exited;
    server = null;
    const hitsAtKill = { a: site.hits('/a'), b: site.hits('/b') };

    site.set('/slow', { html: page('Slow', '<p>Third.</p>') });
    server = await startServer(env(), 60_000);
    const check = await until('the check resumed and completed', async () => {
      const [c] = (await call('GET', `/v1/monitor/${monitor.id}/checks`)).data.checks;
      return c?.status === 'completed' ? c : null;
    }, WAIT);
    const all = (await call('GET', `/v1/monitor/${monitor.id}/checks`)).data.checks;
    expect(all.map((c: Body) => c.id)).toEqual([before.id]);
    expect(check.summary).toMatchObject({ totalPages: 3, new: 3, error: 0 });
    expect(check.pages.map((p: Body) => p.url.replace(site.origin, ''))).toEqual(['/a', '/b', '/slow']);
    expect(check.creditsUsed).toBe(3);
    // The pages judged before the kill were not read again.
    expect({ a: site.hits('/a'), b: site.hits('/b') }).toEqual(hitsAtKill);
    // The schedule came back from the store: the next check is still one interval after the first was due.
    const after = (await call('GET', `/v1/monitor/${monitor.id}`)).data;
    expect(Date.parse(after.nextCheckAt)).toBe(Date.parse(nextCheckAt) + 10 * 60_000);
    expect(after).toMatchObject({ currentCheckId: null, lastCheckSummary: { new: 3 } });

    // Paused, then started again with its coordination state gone (STATE=memory): the schedule
    // rebuilt from the store keeps it paused; resumed, it is due when it would have been.
    expect((await call('PATCH', `/v1/monitor/${monitor.id}`, { status: 'paused' })).data).toMatchObject({ status: 'paused', nextCheckAt: null });
    await server.stop();
    server = await startServer({ ...env(), STATE: 'memory' }, 60_000);
    expect((await call('GET', `/v1/monitor/${monitor.id}`)).data).toMatchObject({ status: 'paused', nextCheckAt: null });
    expect((await call('POST', `/v1/monitor/${monitor.id}/run`)).error.code).toBe('monitor_paused');
    const resumed = (await call('PATCH', `/v1/monitor/${monitor.id}`, { status: 'active' })).data;
    expect(resumed.status).toBe('active');
    expect(Date.parse(resumed.nextCheckAt)).toBe(Date.parse(nextCheckAt) + 10 * 60_000);
    expect((await call('GET', `/v1/monitor/${monitor.id}/checks`)).data.checks).toHaveLength(1);
  }, 240_000);
});
