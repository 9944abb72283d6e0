#!/usr/bin/env node
/**
 * The service's composition root.
 *
 *   node dist/main.js                  every role in one process (embedded defaults: `npm start`)
 *   node dist/main.js --role gateway   the HTTP gateway only
 *   node dist/main.js --role fetcher   one actor pool (frontier, fetcher, renderer, parser,
 *                                      extractor, searcher, classifier, notifier, intel);
 *                                      start any number of each
 *   node dist/main.js mcp [--url URL]  the MCP server over stdio (gateway/mcp/stdio.ts)
 *   node dist/main.js <command> …      the command line (cli/, docs/cli.md): scrape, crawl, …,
 *                                      keys, serve; the package's `bin`: `npx web-data-service …`
 *
 * Configuration comes from the environment (pipeline/runtime/config.ts); BUS, STORE and STATE choose
 * the engines. `startService` is exported so tests start the same composition in-process, and
 * `run` (this command line) so another entry point runs it with other actors
 * (test/helpers/service-main.ts runs it with the test actors, in child processes).
 */
import { realpathSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { setFlagsFromString } from 'node:v8';
import type { FastifyInstance } from 'fastify';
import type { ActorSpec } from './actors/index.js';
import { ConfigError, loadConfig, redactedConfig, type Config } from './pipeline/service/config.js';
import { keyRegistryFor, type KeyRegistry } from './pipeline/keys/index.js';
import { errorCode } from './pipeline/runtime/errors.js';
import { createLogger, type Logger } from './pipeline/runtime/log.js';
import { serveMetrics, type MetricsServer } from './pipeline/runtime/metrics/server.js';
import { ActorPool } from './pipeline/runtime/pool.js';
import { Requester } from './pipeline/runtime/request-reply.js';
import { createRuntime } from './pipeline/runtime/runtime.js';
import { serviceVersion } from './pipeline/runtime/version.js';
import type { Capability } from './schemas/capabilities.js';
import { ROLES, type Role } from './schemas/topics.js';

export type RoleArg = Role | 'all';

/**
 * This build's actor pools and the capabilities each serves (schemas/capabilities.ts); the
 * gateway serves an operation when the build serves every capability its row in the operation
 * table needs (gateway/wiring.ts), and answers it 501 otherwise. The classifier runs
 * monitor checks (`monitors`, with the frontier's schedules and the scrape path) and sorts
 * and stores mentions (`mentions`, with the searcher that collects them); the
 * notifier calls job and monitor webhooks (`webhooks`: without it the gateway answers a job with a webhook
 * 501); the frontier serves map and schedules crawl and batch jobs (`jobs`, served with the
 * parser's `scrape`: the fetcher and parser read the jobs' pages). The renderer serves
 * `render`: with it the gateway sends browser scrapes (waitFor, actions, screenshot, network)
 * to `renderRequested`; without it, it answers them 501. The intel pool serves `intel`: the
 * domain operations (registries, DNS, the archive, the link graph; a report's pages through
 * the scrape path, so those need `scrape` too).
 * Each actor's code, like the gateway's, is imported when its pool starts: a process running
 * one pool loads that pool, and the command line (`main.js <command>`) none of them.
 */
export const ACTORS: readonly ActorSpec[] = [
  { role: 'frontier', serves: ['map', 'jobs'], create: async (runtime) => (await import('./actors/frontier/index.js')).createFrontierActor(runtime) },
  // With a renderer in the build, a challenge met on a plain fetch is rendered (as the gateway routes).
  { role: 'fetcher', serves: ['fetch'], create: async (runtime, build) => (await import('./actors/fetcher/index.js')).createFetcherActor(runtime, { render: build.serves.has('render') }) },
  { role: 'renderer', serves: ['render'], create: async (runtime) => (await import('./actors/renderer/index.js')).createRendererActor(runtime) },
  { role: 'parser', serves: ['scrape', 'parse'], create: async (runtime) => (await import('./actors/parser/index.js')).createParserActor(runtime) },
  { role: 'extractor', serves: ['extract'], create: async (runtime) => (await import('./actors/extractor/index.js')).createExtractorActor(runtime) },
  { role: 'searcher', serves: ['search', 'social', 'leads'], create: async (runtime) => (await import('./actors/searcher/index.js')).createSearcherActor(runtime) },
  { role: 'classifier', serves: ['monitors', 'mentions'], create: async (runtime) => (await import('./actors/classifier/index.js')).createClassifierActor(runtime) },
  { role: 'notifier', serves: ['webhooks'], create: async (runtime) => (await import('./actors/notifier/index.js')).createNotifierActor(runtime) },
  { role: 'intel', serves: ['intel'], create: async (runtime) => (await import('./actors/intel/index.js')).createIntelActor(runtime) },
];

export interface ServiceOptions {
  config: Config;
  log: Logger;
  role: RoleArg;
  /** The actors of this build (default: ACTORS above). */
  actors?: readonly ActorSpec[];
}

export interface Service {
  /** The gateway, when this process runs it. */
  readonly app: FastifyInstance | null;
  /** A key created because none existed; shown once by the caller. */
  readonly firstKey: string | null;
  /** Where this process serves /metrics (METRICS_PORT), or null. */
  readonly metrics: MetricsServer | null;
  /** Stops the metrics server, the gateway, the requester, the pools, then the runtime. Safe to call twice. */
  stop(): Promise<void>;
}

/** API_KEY is made to exist; with no keys at all, one is created and returned to show once. */
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

/** What a build's actors serve, all roles together: what the gateway may send them. */
function capabilitiesOf(actors: readonly ActorSpec[]): ReadonlySet<Capability> {
  return new Set(actors.flatMap((a) => a.serves ?? []));
}

export async function startService(options: ServiceOptions): Promise<Service> {
  const { config, log, role } = options;
  const actors = options.actors ?? ACTORS;
  // V8 reads this flag each time it sets the next full collection's limit, so it applies to
  // a heap that is already running (HEAP_GROWTH_PERCENT in the settings table says why).
  if (config.heapGrowthPercent > 0) setFlagsFromString(`--heap-growing-percent=${config.heapGrowthPercent}`);
  const runtime = await createRuntime(config, log, role);
  const pools: ActorPool[] = [];
  let app: FastifyInstance | null = null;
  let requester: Requester | null = null;
  let keys: KeyRegistry | null = null;
  let firstKey: string | null = null;
  let metrics: MetricsServer | null = null;
  let stopping: Promise<void> | null = null;
  const stop = () =>
    (stopping ??= (async () => {
      await metrics?.close();
      await app?.close();
      await requester?.stop();
      for (const pool of pools) await pool.stop();
      keys?.close();
      await runtime.close();
    })());
  // Every role's capabilities, as the gateway's routing sees them (gateway/wiring.ts).
  const build = { serves: capabilitiesOf(actors) };
  try {
    if (config.metricsPort !== null) metrics = await serveMetrics(runtime.metrics, { port: config.metricsPort, host: config.metricsHost }, log);
    for (const actor of actors.filter((a) => role === 'all' || a.role === role)) {
      const pool = new ActorPool(await actor.create(runtime, build), runtime.events, log, undefined, runtime.metrics);
      pools.push(pool);
      await pool.start();
    }
    if (role === 'all' || role === 'gateway') {
      keys = keyRegistryFor(config, runtime);
      firstKey = await prepareKeys(config, keys, log);
      requester = new Requester(runtime.events, log.child({ component: 'requester' }));
      await requester.start();
      const { buildGateway } = await import('./gateway/app.js');
      app = await buildGateway({
        config,
        log,
        keys,
        state: runtime.state,
        version: serviceVersion(),
        metrics: runtime.metrics,
        pipeline: { serves: build.serves, requester, records: runtime },
      });
      await app.listen({ port: config.port, host: config.host });
    }
  } catch (error) {
    // A start that fails half-way (port taken, consumer group not joined) releases what it
    // holds, so an in-process caller is left with nothing running.
    await stop().catch((closeError: unknown) => log.warn({ err: closeError }, 'could not release a failed start completely'));
    throw error;
  }
  return { app, firstKey, metrics, stop };
}

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

function readRole(argv: string[]): RoleArg {
  const { values } = parseArgs({ args: argv, options: { role: { type: 'string', default: 'all' } }, strict: true });
  const role = values.role as string;
  if (role === 'all' || (ROLES as readonly string[]).includes(role)) return role as RoleArg;
  process.stderr.write(`web-data-service: --role must be all or one of ${ROLES.join(', ')}; got "${role}"\n`);
  process.exit(64);
}

export interface RunOptions {
  /** The actors of this build (default: main.ts ACTORS). */
  actors?: readonly ActorSpec[];
}

/**
 * The command line: reads `--role` from `argv` and the config from the environment, starts
 * the service, prints where it listens (or that the pool runs) and stops it on SIGINT/SIGTERM.
 * A start that fails logs one fatal line with the error's code and exits 1. Exported for
 * entry points that run the same command line with other actors (test/helpers/service-main.ts).
 */
export async function run(argv: string[], options: RunOptions = {}): Promise<void> {
  const role = readRole(argv);
  const config = readConfig();
  const log = createLogger(config.logLevel).child({ role });
  const version = serviceVersion();
  log.info({ config: redactedConfig(config), version }, 'starting');
  let service: Service;
  try {
    service = await startService({ config, log, role, ...(options.actors ? { actors: options.actors } : {}) });
  } catch (error) {
    const code = errorCode(error);
    log.fatal({ err: error, code }, `could not start${typeof code === 'string' ? ` (${code})` : ''}: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  }
  if (service.app) {
    const address = service.app.server.address();
    const port = typeof address === 'object' && address ? address.port : config.port;
    const shown = config.host === '0.0.0.0' || config.host === '::' ? 'localhost' : config.host;
    process.stdout.write(`\nWeb Data Service ${version} listening on http://${shown}:${port}\n`);
    process.stdout.write(`API reference: http://${shown}:${port}/docs\n`);
  } else {
    process.stdout.write(`\nWeb Data Service ${version}: ${role} pool running\n`);
  }
  if (service.metrics) {
    const { address, port } = service.metrics.address;
    process.stdout.write(`Metrics: http://${address.includes(':') ? `[${address}]` : address}:${port}/metrics\n`);
  }
  if (service.firstKey) {
    process.stdout.write(`\nYour API key (shown once; keep it safe, manage keys with \`npm run keys\`):\n${service.firstKey}\n\n`);
  }
  const stop = async (signal: string) => {
    log.info({ signal }, 'shutting down');
    await service.stop();
    process.exit(0);
  };
  process.once('SIGINT', () => void stop('SIGINT'));
  process.once('SIGTERM', () => void stop('SIGTERM'));
  // Started with an IPC channel by the process it serves (`web-data-service mcp` running the
  // embedded service, gateway/mcp/stdio.ts): when that process is gone, killed or not, so is
  // this service, rather than holding DATA_DIR with nobody to call it.
  if (process.channel) process.once('disconnect', () => void stop('disconnect'));
}

/** This file is the process's entry point: run directly, or through a link to it (the package's `bin` under node_modules/.bin). */
function isEntryPoint(): boolean {
  const script = process.argv[1];
  if (!script) return false;
  try {
    return import.meta.url === pathToFileURL(realpathSync(script)).href;
  } catch {
    return import.meta.url === pathToFileURL(script).href;
  }
}

/** No arguments, or only the service's own flags (`--role X`): start the service, as `npm start` does. */
function startsTheService(argv: readonly string[]): boolean {
  return argv.length === 0 || argv[0] === '--role' || argv[0]?.startsWith('--role=') === true;
}

if (isEntryPoint()) {
  const argv = process.argv.slice(2);
  if (startsTheService(argv)) await run(argv);
  else {
    // Imported here: the service itself never loads the command line nor the MCP SDK's stdio side.
    const { runCli } = await import('./cli/index.js');
    const script = process.argv[1] as string;
    const code = await runCli(argv, {
      version: serviceVersion(),
      script,
      serve: (args) => run(args),
      mcp: async (args) => {
        const { runMcpStdio } = await import('./gateway/mcp/stdio.js');
        return runMcpStdio(args, { version: serviceVersion(), script });
      },
    });
    process.exit(code);
  }
}
