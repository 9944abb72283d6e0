/**
 * The service's composition root. `npm start` runs everything in one process with the
 * embedded defaults: the HTTP gateway, the keys ledger under DATA_DIR, and (as they land)
 * the actor pools. Configuration comes from the environment (pipeline/config.ts).
 */
import { buildGateway } from './gateway/app.js';
import { ConfigError, loadConfig, redactedConfig, type Config } from './pipeline/config.js';
import { FileKeyRegistry } from './pipeline/keys/ledger-file.js';
import type { KeyRegistry } from './pipeline/keys/registry.js';
import { createLogger, type Logger } from './pipeline/log.js';
import { serviceVersion } from './pipeline/version.js';

function readConfig(): Config {
  try {
    return loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`web-data-service: invalid configuration: ${error.message}\n`);
      process.exit(78);
    }
    throw error;
  }
}

/** API_KEY is made to exist; with no keys at all, one is created and shown once. */
async function prepareKeys(config: Config, keys: KeyRegistry, log: Logger): Promise<string | null> {
  if (config.apiKey !== null) {
    const record = await keys.ensure(config.apiKey, 'API_KEY');
    log.info({ keyId: record.id }, 'API_KEY is active with unlimited credits');
    return null;
  }
  if ((await keys.list()).length > 0) return null;
  const { key, record } = await keys.create({ name: 'bootstrap', credits: config.bootstrapKeyCredits });
  log.info({ keyId: record.id }, 'created the first API key');
  return key;
}

async function main(): Promise<void> {
  const config = readConfig();
  const log = createLogger(config.logLevel);
  const version = serviceVersion();
  log.info({ config: redactedConfig(config), version }, 'starting');
  const keys = new FileKeyRegistry(config.dataDir);
  const firstKey = await prepareKeys(config, keys, log);
  const app = await buildGateway({ config, log, keys, version });
  await app.listen({ port: config.port, host: config.host });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const shown = config.host === '0.0.0.0' || config.host === '::' ? 'localhost' : config.host;
  process.stdout.write(`\nWeb Data Service ${version} listening on http://${shown}:${port}\n`);
  process.stdout.write(`API reference: http://${shown}:${port}/docs\n`);
  if (firstKey) {
    process.stdout.write(`\nYour API key (shown once; keep it safe, manage keys with \`npm run keys\`):\n${firstKey}\n\n`);
  }
  const stop = async (signal: string) => {
    log.info({ signal }, 'shutting down');
    await app.close();
    keys.close();
    process.exit(0);
  };
  process.once('SIGINT', () => void stop('SIGINT'));
  process.once('SIGTERM', () => void stop('SIGTERM'));
}

await main();
