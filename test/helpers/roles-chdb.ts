/**
 * For test/pipeline/store.loading.test.ts: starts the service in this process for each role
 * named on the command line, in turn (configuration from the environment, as main.ts reads
 * it), and after each start prints one JSON line: `{"role": …, "libchdb": bool}`, whether
 * chdb's engine library is mapped into this process by then (/proc/self/maps). Each service
 * is stopped before the next role starts. Exits 0 when every role started.
 *
 *   node --import tsx test/helpers/roles-chdb.ts gateway fetcher all
 */
import { readFileSync } from 'node:fs';
import { startService, type RoleArg } from '../../main.js';
import { loadConfig } from '../../pipeline/service/config.js';
import { createLogger } from '../../pipeline/runtime/log.js';

const config = loadConfig();
const log = createLogger(config.logLevel);
for (const role of process.argv.slice(2) as RoleArg[]) {
  const service = await startService({ config, log, role });
  const libchdb = readFileSync('/proc/self/maps', 'utf8').includes('libchdb');
  process.stdout.write(`${JSON.stringify({ role, libchdb })}\n`);
  await service.stop();
}
process.exit(0);
