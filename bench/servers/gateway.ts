/**
 * Child process for bench/gateway.ts: the real gateway (buildGateway) with the embedded
 * defaults (a fresh DATA_DIR with the file ledger, memory state), counting every answer in
 * its metrics as the service's gateway does (gateway/http-metrics.ts), and one unlimited key,
 * configured from the environment like `npm start` (LOG_LEVEL and the rest), on 127.0.0.1
 * and a free port. Reports `{port, key}` over IPC.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildGateway } from '../../gateway/app.js';
import { loadConfig } from '../../pipeline/service/config.js';
import { FileKeyRegistry } from '../../pipeline/keys/ledger-file.js';
import { createLogger } from '../../pipeline/runtime/log.js';
import { Metrics } from '../../pipeline/runtime/metrics/metrics.js';
import { MemoryState } from '../../pipeline/runtime/state/memory.js';
import { serveChild } from './child.js';

const dataDir = mkdtempSync(join(tmpdir(), 'wds-bench-'));
const config = loadConfig({ ...process.env, DATA_DIR: dataDir, HOST: '127.0.0.1', PORT: '0' });
const keys = new FileKeyRegistry(dataDir);
const state = new MemoryState();
const { key } = await keys.create({ name: 'bench', credits: 'unlimited' });
const app = await buildGateway({ config, log: createLogger(config.logLevel), keys, state, version: '0.1.0-bench', metrics: new Metrics() });
await app.listen({ port: config.port, host: config.host });
serveChild(app, { key }, async () => {
  keys.close();
  await state.close();
  rmSync(dataDir, { recursive: true, force: true });
});
