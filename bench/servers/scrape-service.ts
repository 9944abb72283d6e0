/**
 * Child process for bench/scrape.ts: the whole service in embedded mode, as `npm start` runs
 * it (`startService`, role `all`: gateway, fetcher and parser pools on the memory bus, chdb
 * in a fresh DATA_DIR, the default state: STATE=file unless STATE is set), configured from the environment (LOG_LEVEL and the
 * rest) with one unlimited key (API_KEY), private addresses allowed (the pages are served on
 * 127.0.0.1) and rate limiting off. Reports `{port, key}` over IPC, answers `cpu` and
 * `memory` asks, and stops the service on SIGTERM.
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
const service = await startService({ config, log: createLogger(config.logLevel), role: 'all' });
const address = service.app?.server.address();
process.once('SIGTERM', () => {
  void service
    .stop()
    .then(() => rmSync(dataDir, { recursive: true, force: true }))
    .finally(() => process.exit(0));
});
answerUsage();
process.send?.({ port: typeof address === 'object' && address ? address.port : 0, key });
