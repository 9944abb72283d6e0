/**
 * ClickHouse's HTTP interface served from chdb: the embedded store's data directory made
 * reachable by anything that speaks ClickHouse over HTTP — our own `clickhouse` driver
 * (@clickhouse/client), clickhouse-client, an analyst's BI tool — while this process holds
 * the directory's lock. It is also the "ClickHouse server" of the multi-process tests, since
 * no current ClickHouse server package exists for this platform.
 *
 * Protocol (the subset @clickhouse/client uses; request parsing in chdb-http-request.ts):
 * - GET /ping and GET / without a query answer `Ok.\n`.
 * - POST / (or GET /, read-only) runs one statement on a connection kept open between
 *   requests and filed under its state (connections.ts): the known settings (SET), the
 *   read-only flag and the database (USE) are set when the connection is opened, the
 *   parameters (SET param_…) before each statement. Unknown settings are ignored (logged at
 *   debug).
 * - An INSERT whose rows are the body goes to the engine as raw bytes for text formats
 *   (JSONEachRow, CSV, TSV, …); any other statement with a body runs as `<query>\n<body>`.
 * - Request bodies in gzip/deflate/br (Content-Encoding) are decompressed; the response is
 *   gzip/deflate/br-compressed when the request sets enable_http_compression=1 and
 *   Accept-Encoding allows it.
 * - Every answer carries X-ClickHouse-Query-Id, X-ClickHouse-Format, X-ClickHouse-Timezone,
 *   X-ClickHouse-Server-Display-Name and X-ClickHouse-Summary (JSON). An error is HTTP 500
 *   (401 for bad credentials) with `Code: N. DB::Exception: …` and X-ClickHouse-Exception-Code.
 *
 * Not served: sessions (session_id is ignored; every request is independent), progress
 * headers, streaming (bodies and results are buffered, up to `maxBodyBytes`), binary insert
 * formats. Without `username` it accepts any credentials, so it listens on 127.0.0.1 unless
 * told otherwise.
 *
 * Run it: `node --import tsx infra/chdb-http/server.ts --data DIR [--port 8123]
 * [--host 127.0.0.1] [--user U --password P] [--log-level warn]`; it prints
 * `listening on http://HOST:PORT` when ready and stops on SIGTERM/SIGINT.
 */
import { createHash, randomUUID, timingSafeEqual } from 'node:crypto';
import { mkdirSync, realpathSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { hostname } from 'node:os';
import { pathToFileURL } from 'node:url';
import type { Session } from 'chdb';
import { createLogger, type Logger } from '../../pipeline/runtime/log.js';
import { compress, decompress, HttpFailure, pickEncoding, readBody } from './body.js';
import { Connections } from './connections.js';
import { clickhouseError, execute, summaryHeader, type Execution } from './exec.js';
import { readRequest, type ChRequest } from './request.js';
import { outputFormat } from './sql.js';
import { releaseEngineStartupPages, type Released } from '../../pipeline/runtime/store/code-pages.js';
import { storeError } from '../../pipeline/runtime/store/store-error.js';

export interface ChdbHttpOptions {
  /** The engine's directory (created when missing); the same one a ChdbStore would use. */
  readonly dataDir: string;
  /** 0 picks a free port; default 8123. */
  readonly port?: number;
  /** Default 127.0.0.1. */
  readonly host?: string;
  /** When set, requests must present these credentials. */
  readonly username?: string;
  readonly password?: string;
  /** Largest request body, compressed or not; default 256 MiB. */
  readonly maxBodyBytes?: number;
  readonly log?: Logger;
}

export interface ChdbHttpServer {
  /** `http://host:port` */
  readonly url: string;
  readonly port: number;
  /** What the engine library's start-up gave back once the engine was up (code-pages.ts). */
  readonly released: Released;
  /** Stops accepting, finishes what is running, releases the engine. Idempotent. */
  close(): Promise<void>;
}

interface Context extends Execution {
  readonly maxBodyBytes: number;
  readonly credentials: { user: string; password: string } | null;
  readonly displayName: string;
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}

function authorized(ctx: Context, req: ChRequest): boolean {
  if (!ctx.credentials) return true;
  const user = timingSafeEqual(digest(req.user ?? 'default'), digest(ctx.credentials.user));
  const password = timingSafeEqual(digest(req.password ?? ''), digest(ctx.credentials.password));
  return user && password;
}

function commonHeaders(ctx: Context, queryId: string, format: string): Record<string, string> {
  return {
    'X-ClickHouse-Query-Id': queryId,
    'X-ClickHouse-Format': format,
    'X-ClickHouse-Timezone': 'UTC',
    'X-ClickHouse-Server-Display-Name': ctx.displayName,
  };
}

function contentType(format: string): string {
  return /^JSON/i.test(format) ? 'application/json; charset=UTF-8' : 'text/plain; charset=UTF-8';
}

async function handle(ctx: Context, request: IncomingMessage, response: ServerResponse): Promise<void> {
  const url = new URL(request.url ?? '/', 'http://localhost');
  const queryId = url.searchParams.get('query_id') || randomUUID();
  const send = (status: number, headers: Record<string, string>, body: Buffer | string) => {
    response.writeHead(status, { ...commonHeaders(ctx, queryId, headers['X-ClickHouse-Format'] ?? 'TabSeparated'), ...headers });
    response.end(body);
  };
  const method = request.method ?? 'GET';
  if ((method === 'GET' || method === 'HEAD') && url.pathname === '/ping') return send(200, { 'Content-Type': 'text/plain; charset=UTF-8' }, 'Ok.\n');
  if (url.pathname !== '/' || !['GET', 'HEAD', 'POST'].includes(method)) {
    return send(404, { 'Content-Type': 'text/plain; charset=UTF-8' }, `There is no handle ${url.pathname}\n\nUse / or /ping for health checks.\n`);
  }
  let format = 'TabSeparated';
  try {
    const raw = await readBody(request, ctx.maxBodyBytes);
    const body = await decompress(raw, request.headers['content-encoding'], ctx.maxBodyBytes);
    const req = readRequest(url, request.headers, body);
    if (!authorized(ctx, req)) throw new HttpFailure(401, 516, 'AUTHENTICATION_FAILED', `${req.user ?? 'default'}: Authentication failed: password is incorrect, or there is no user with such name`);
    if (method !== 'POST' && req.sql.trim() === '') return send(200, { 'Content-Type': 'text/plain; charset=UTF-8' }, 'Ok.\n');
    format = outputFormat(req.sql, req.defaultFormat);
    const result = await execute(ctx, req, method !== 'POST', format);
    const wantsCompression = ['1', 'true'].includes(req.settings.get('enable_http_compression') ?? '');
    const encoding = wantsCompression ? pickEncoding(request.headers['accept-encoding']) : null;
    const headers: Record<string, string> = {
      'Content-Type': contentType(format),
      'X-ClickHouse-Format': format,
      'X-ClickHouse-Summary': summaryHeader(result.summary),
    };
    if (encoding) headers['Content-Encoding'] = encoding;
    send(200, headers, encoding ? await compress(result.body, encoding) : result.body);
  } catch (error) {
    const status = error instanceof HttpFailure ? error.status : 500;
    const { code, text } = clickhouseError(error);
    ctx.log.debug({ queryId, code, err: error }, 'clickhouse http request failed');
    if (response.headersSent) return void response.destroy();
    send(status, { 'Content-Type': 'text/plain; charset=UTF-8', 'X-ClickHouse-Format': format, 'X-ClickHouse-Exception-Code': String(code) }, text);
  }
}

/**
 * Opens the engine on `dataDir` and serves it; resolves once listening. The chdb package (and
 * its engine library) is loaded here, not when this module is imported.
 */
export async function startChdbHttp(options: ChdbHttpOptions): Promise<ChdbHttpServer> {
  const log = options.log ?? createLogger('silent');
  const chdb = await import('chdb');
  // Held for the server's life: takes the directory's lock now (failing at start when another
  // process has it) and keeps the engine loaded between requests.
  let anchor: Session;
  try {
    mkdirSync(options.dataDir, { recursive: true });
    anchor = new chdb.Session(options.dataDir);
  } catch (error) {
    throw storeError('chdb', error);
  }
  let knownSettings: Set<string>;
  try {
    const rows = (await anchor.queryAsync('SELECT name FROM system.settings', { format: 'TabSeparated' })).text();
    knownSettings = new Set(rows.split('\n').filter((n) => n !== ''));
  } catch (error) {
    anchor.close();
    throw storeError('chdb', error);
  }
  const released = releaseEngineStartupPages(log);
  const dataDir = options.dataDir;
  const connections = new Connections(() => new chdb.Session(dataDir));
  const ctx: Context = {
    dataDir,
    chdb,
    connections,
    knownSettings,
    log,
    maxBodyBytes: options.maxBodyBytes ?? 256 * 1024 * 1024,
    credentials: options.username !== undefined ? { user: options.username, password: options.password ?? '' } : null,
    displayName: hostname(),
  };
  const server = createServer((request, response) => {
    handle(ctx, request, response).catch((error: unknown) => {
      log.error({ err: error }, 'clickhouse http handler crashed');
      response.destroy();
    });
  });
  const host = options.host ?? '127.0.0.1';
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.port ?? 8123, host, () => {
        server.off('error', reject);
        resolve();
      });
    });
  } catch (error) {
    anchor.close();
    throw error;
  }
  const port = (server.address() as AddressInfo).port;
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  log.info({ url, dataDir: options.dataDir }, 'clickhouse http interface listening');
  let closing: Promise<void> | null = null;
  return {
    url,
    port,
    released,
    close() {
      closing ??= (async () => {
        const closed = new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeIdleConnections();
        const force = setTimeout(() => server.closeAllConnections(), 2000);
        await closed;
        clearTimeout(force);
        connections.close();
        anchor.close();
        await chdb.drainPending();
      })();
      return closing;
    },
  };
}

function parseArgs(argv: readonly string[]): Map<string, string> {
  const args = new Map<string, string>();
  for (let i = 0; i < argv.length; i += 2) {
    const name = argv[i];
    const value = argv[i + 1];
    if (!name?.startsWith('--') || value === undefined) throw new Error(`usage: chdb-http --data DIR [--port N] [--host H] [--user U --password P] [--log-level L] (at ${name ?? 'end'})`);
    args.set(name.slice(2), value);
  }
  return args;
}

async function main(argv: readonly string[]): Promise<void> {
  const args = parseArgs(argv);
  const dataDir = args.get('data');
  if (!dataDir) throw new Error('chdb-http: --data DIR is required');
  const log = createLogger(args.get('log-level') ?? 'warn').child({ component: 'chdb-http' });
  const server = await startChdbHttp({
    dataDir,
    port: Number(args.get('port') ?? 8123),
    host: args.get('host') ?? '127.0.0.1',
    ...(args.has('user') ? { username: args.get('user'), password: args.get('password') ?? '' } : {}),
    log,
  });
  process.stdout.write(`listening on ${server.url}\n`);
  const stop = () => {
    void server.close().then(() => process.exit(0));
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

function isEntry(argv1: string | undefined): boolean {
  try {
    return argv1 !== undefined && import.meta.url === pathToFileURL(realpathSync(argv1)).href;
  } catch {
    return false;
  }
}

if (isEntry(process.argv[1])) {
  main(process.argv.slice(2)).catch((error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  });
}
