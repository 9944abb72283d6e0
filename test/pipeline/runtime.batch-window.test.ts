/**
 * STORE_BATCH_MAX_DELAY_MS (pipeline/runtime/settings.ts): the runtime's batch writer waits as
 * long as the setting says for a table's batch to fill. A runtime on the `clickhouse` driver
 * (the ClickHouse HTTP interface served by chdb in its own process, memory state and bus)
 * with a 600 ms window takes three rows written 100 ms apart in one insert; with the default
 * window (20 ms) they go in more than one. A value past the
 * setting's bounds stops the process at start with the variable named.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, parseSettings, RUNTIME_SETTINGS } from '../../pipeline/runtime/config.js';
import { createRuntime, type Runtime } from '../../pipeline/runtime/runtime.js';
import { chdbAvailable, quietLog, startClickHouseProcess, tempDir, type ClickHouseProcess, type TempDir } from '../helpers/clickhouse.js';
import { parseExposition, sample } from '../helpers/metrics.js';

const hasChdb = await chdbAvailable();

describe.skipIf(!hasChdb)('the store batch window (STORE_BATCH_MAX_DELAY_MS)', () => {
  let dir: TempDir;
  let clickhouse: ClickHouseProcess;
  const runtimes: Runtime[] = [];

  const runtime = async (env: Record<string, string>) => {
    const config = parseSettings(RUNTIME_SETTINGS, { STORE: 'clickhouse', CLICKHOUSE_URL: clickhouse.url, STATE: 'memory', BUS: 'memory', DATA_DIR: dir.path, ...env });
    const made = await createRuntime(config, quietLog, 'all');
    runtimes.push(made);
    return made;
  };
  /** Inserts of `table` the runtime's writer sent, and their rows. */
  const inserts = async (r: Runtime, table: string) => {
    const samples = parseExposition(await r.metrics.text());
    return {
      batches: sample(samples, 'wds_store_insert_batches_total', { table, result: 'ok' }) ?? 0,
      rows: sample(samples, 'wds_store_insert_rows_total', { table }) ?? 0,
    };
  };
  const errorRow = (jobId: string, n: number) => ({
    tenant: 't',
    job_id: jobId,
    id: `e${n}`,
    at: Date.now(),
    url: `http://example.test/${n}`,
    code: 'fetch_failed',
    message: 'm',
    status_code: 0,
  });

  beforeAll(async () => {
    dir = tempDir('batch-window');
    clickhouse = await startClickHouseProcess(dir.path);
  }, 60_000);

  afterAll(async () => {
    for (const r of runtimes) await r.close();
    await clickhouse?.stop();
    dir?.remove();
  });

  it('defaults to 20 ms and refuses a window past its bounds, naming the variable', () => {
    expect(parseSettings(RUNTIME_SETTINGS, {}).storeBatchMaxDelayMs).toBe(20);
    expect(parseSettings(RUNTIME_SETTINGS, { STORE_BATCH_MAX_DELAY_MS: '0' }).storeBatchMaxDelayMs).toBe(0);
    for (const bad of ['-1', '10001', 'soon']) {
      expect(() => parseSettings(RUNTIME_SETTINGS, { STORE_BATCH_MAX_DELAY_MS: bad })).toThrow(ConfigError);
      expect(() => parseSettings(RUNTIME_SETTINGS, { STORE_BATCH_MAX_DELAY_MS: bad })).toThrow(/STORE_BATCH_MAX_DELAY_MS/);
    }
  });

  /** Three rows of one job written 100 ms apart, each write awaited only at the end. */
  const threeRows = async (r: Runtime) => {
    const jobId = randomUUID();
    const writes: Promise<void>[] = [];
    for (let n = 0; n < 3; n++) {
      writes.push(r.writer.write('job_errors', [errorRow(jobId, n)]));
      if (n < 2) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    await Promise.all(writes);
    const [landed] = await r.store.query<{ n: string }>('SELECT count() AS n FROM job_errors WHERE job_id = {id:String}', { id: jobId });
    expect(Number(landed?.n)).toBe(3);
    return inserts(r, 'job_errors');
  };

  it('takes the rows written within the window in one insert', async () => {
    expect(await threeRows(await runtime({ STORE_BATCH_MAX_DELAY_MS: '600' }))).toEqual({ batches: 1, rows: 3 });
  });

  it('sends them in more than one at the default window', async () => {
    // Three at 20 ms; two when an insert outlasts the 100 ms between writes (the next batch waits for it, taking rows).
    const sent = await threeRows(await runtime({}));
    expect(sent.rows).toBe(3);
    expect(sent.batches).toBeGreaterThan(1);
  });
});
