/**
 * `web-data-service mcp`: the MCP server over stdio, for an agent that starts it as a command
 * (Claude Desktop, Cursor, …). Standard output carries the protocol and nothing else: every
 * line of this process and of the service it starts goes to standard error.
 *
 * - With `--url <base>` or WDS_URL it talks to that running service over HTTP, with the key
 *   in WDS_API_KEY (required).
 * - Without, it runs the embedded service itself: `main.js` (this same entry point) in a
 *   child process listening on 127.0.0.1 and a free port, reached over HTTP with its key
 *   (pipeline/service/embedded.ts). Not in this process: chdb, the embedded store, takes a
 *   process's piped standard input as the data of its inserts, and here standard input is
 *   the MCP client's pipe, so an in-process store would read the protocol's messages as rows.
 *
 * Either way each tool call is an HTTP request to the API (gateway/mcp/server.ts), so keys,
 * credits, rate limits and the SSRF guard apply as they do to any caller.
 */
import { realpathSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { ConfigError, loadConfig, mcpCommandEnvironment, type McpCommandEnvironment } from '../../pipeline/service/config.js';
import { startEmbeddedChild, type EmbeddedChild } from '../../pipeline/service/embedded.js';
import { createMcpServer, DEFAULT_MAX_DEPTH, type ApiCaller } from './server.js';
import { TOOLS } from './tools.js';

const USAGE = `usage: web-data-service mcp [--url <service base URL>]

The MCP server over stdio. With --url (or WDS_URL) it calls that service with the key in
WDS_API_KEY; without, it runs the embedded service (settings from the environment: DATA_DIR, …).
`;

function say(line: string): void {
  process.stderr.write(`web-data-service mcp: ${line}\n`);
}

/** Calls the API at `base` with `key`. */
export function httpCaller(base: string, key: string | (() => Promise<{ base: string; key: string }>)): ApiCaller {
  return async (request, signal) => {
    const target = typeof key === 'string' ? { base, key } : await key();
    const res = await fetch(`${target.base.replace(/\/+$/, '')}${request.url}`, {
      method: request.method,
      headers: { ...request.headers, authorization: `Bearer ${target.key}` },
      ...(request.body === undefined ? {} : { body: typeof request.body === 'string' ? request.body : new Uint8Array(request.body) }),
      signal,
    });
    return { status: res.status, body: await res.text() };
  };
}

export interface StdioOptions {
  /** The service's version. */
  readonly version: string;
  /** The entry point that runs the service (main.js), started again for the embedded mode. */
  readonly script: string;
  /** Default: this process's (pipeline/service/config.ts `mcpCommandEnvironment`). */
  readonly environment?: McpCommandEnvironment;
}

/** Runs the stdio server until the client closes standard input or a signal arrives. */
export async function runMcpStdio(argv: string[], options: StdioOptions): Promise<void> {
  const command = options.environment ?? mcpCommandEnvironment();
  let values: { url?: string; help?: boolean };
  try {
    ({ values } = parseArgs({ args: argv, options: { url: { type: 'string' }, help: { type: 'boolean', short: 'h' } }, strict: true }));
  } catch (error) {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n${USAGE}`);
    process.exit(64);
  }
  if (values.help) {
    process.stderr.write(USAGE);
    process.exit(0);
  }
  const url = values.url ?? command.url;
  let closing = false;
  let api: ApiCaller;
  let embedded: EmbeddedChild | null = null;
  let maxDepth = DEFAULT_MAX_DEPTH;
  if (url) {
    if (!/^https?:\/\/\S+$/.test(url)) {
      say(`--url / WDS_URL must be an http(s) URL; got "${url}"`);
      process.exit(64);
    }
    const key = command.apiKey;
    if (!key) {
      say('WDS_API_KEY is required with --url / WDS_URL: the API key calls are made with');
      process.exit(64);
    }
    api = httpCaller(url, key);
    say(`calling the service at ${url}`);
  } else {
    try {
      maxDepth = loadConfig(command.env).bodyMaxDepth;
      embedded = startEmbeddedChild(realpathSync(options.script), command, { output: (chunk) => process.stderr.write(chunk) });
    } catch (error) {
      say(error instanceof ConfigError ? `invalid configuration: ${error.message}` : `could not start the embedded service: ${String(error)}`);
      process.exit(78);
    }
    const started = embedded;
    api = httpCaller('', () => started.ready);
    started.ready.then(
      ({ base }) => say(`embedded service listening on ${base}`),
      (error: unknown) => {
        say(error instanceof Error ? error.message : String(error));
        void started.stop().then(() => process.exit(1));
      },
    );
    started.child.once('exit', (code, signal) => {
      if (!closing) {
        say(`the embedded service stopped (${signal ?? `code ${String(code)}`})`);
        process.exit(1);
      }
    });
  }

  const server = createMcpServer(TOOLS, api, { version: options.version, maxDepth });
  const transport = new StdioServerTransport();
  const shutdown = async (why: string) => {
    if (closing) return;
    closing = true;
    say(`stopping (${why})`);
    await server.close().catch(() => undefined);
    await embedded?.stop();
    process.exit(0);
  };
  transport.onclose = () => void shutdown('the client closed the connection');
  process.stdin.once('end', () => void shutdown('standard input closed'));
  process.once('SIGINT', () => void shutdown('SIGINT'));
  process.once('SIGTERM', () => void shutdown('SIGTERM'));
  await server.connect(transport);
}
