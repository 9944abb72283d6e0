/**
 * Child process for bench/scrape.ts: the whole service in embedded mode, as `npm start` runs
 * it (`startService`, role `all`: gateway, fetcher and parser pools on the memory bus, chdb
 * in a fresh DATA_DIR, the default state: STATE=file unless STATE is set), configured from the environment (LOG_LEVEL and the
 * rest) with one unlimited key (API_KEY), private addresses allowed (the pages are served on
 * 127.0.0.1) and rate limiting off. Reports `{port, key}` over IPC, answers `cpu` and
 * `memory` asks, and stops the service on SIGTERM. BENCH_MEMORY_TRACE=<file> traces its memory
 * (memory-trace.ts).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startService } from '../../main.js';
import { loadConfig } from '../../pipeline/service/config.js';
import { createLogger } from '../../pipeline/runtime/log.js';
import { answerUsage } from './child.js';

const key = 'bench-scrape-key-0123456789';
const dataDir = mkdtempSync(join(tmpdir(), 'wds-bench-scrape-'));
const config = loadConfig({
  ...process.env,
  DATA_DIR: dataDir,
  HOST: '127.0.0.1',
  PORT: '0',
  API_KEY: key,
  FETCH_ALLOW_PRIVATE: 'true',
  RATE_LIMIT_PER_MINUTE: '0',
});
const trace = process.env.BENCH_MEMORY_TRACE;
if (trace) {
  const { watchWriter } = await import('./memory-trace.js');
  const { BatchWriter } = await import('../../pipeline/runtime/store/batch-writer.js');
  watchWriter(BatchWriter);
}
const service = await startService({ config, log: createLogger(config.logLevel), role: 'all' });
const address = service.app?.server.address();
process.once('SIGTERM', () => {
  void service
    .stop()
    .then(() => rmSync(dataDir, { recursive: true, force: true }))
    .finally(() => process.exit(0));
});
if (trace) {
  const { startMemoryTrace } = await import('./memory-trace.js');
  await startMemoryTrace(trace, Number(process.env.BENCH_MEMORY_TRACE_MS || 1000), config.store === 'chdb' ? join(dataDir, 'clickhouse') : null);
}
answerUsage();
process.send?.({ port: typeof address === 'object' && address ? address.port : 0, key });
