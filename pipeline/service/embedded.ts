/**
 * The embedded service in a child process, for the commands that call the API but were given
 * no service to call (`web-data-service mcp`, gateway/mcp/stdio.ts; the command line, cli/):
 * `main.js` (the entry point that started them) run again with `--role all`, listening on
 * 127.0.0.1 and a free port, reached over HTTP with its key.
 *
 * Not in the calling process: chdb, the embedded store, takes a process's piped standard input
 * as the data of its inserts, and the caller's standard input may be a pipe (the MCP client's
 * protocol, a shell pipeline), so an in-process store would read it as rows. The child's
 * standard input is closed ('ignore'). Its key is WDS_API_KEY, else API_KEY, else one derived
 * from the instance's server secret (pipeline/webhooks/secret.ts), the same at each start and
 * never written anywhere; it is passed to the child as API_KEY, so it is an unlimited key of
 * that DATA_DIR, as API_KEY always is. The child stops when its IPC channel to the caller
 * closes (main.ts), so it never outlives the command, even killed.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { serverWebhookSecret } from '../webhooks/secret.js';
import { loadConfig, type McpCommandEnvironment } from './config.js';

/** How long the embedded service may take to start listening. */
export const EMBEDDED_START_MS = 180_000;
/** How long the embedded service is given to stop before it is killed. */
const STOP_GRACE_MS = 15_000;

export interface EmbeddedChild {
  readonly child: ChildProcess;
  /** The base URL and key once it listens; rejects when it exits first or takes too long. */
  readonly ready: Promise<{ base: string; key: string }>;
  /** SIGTERM, then SIGKILL after the grace period. Safe to call twice. */
  stop(): Promise<void>;
}

export interface EmbeddedChildOptions {
  /** Where each chunk the child writes (standard output and error) goes. */
  readonly output: (chunk: string | Buffer) => void;
  /** Settings on top of the caller's environment (e.g. LOG_LEVEL). */
  readonly env?: Readonly<Record<string, string>>;
  /**
   * Its own process group, so a terminal's Ctrl-C (sent to the caller's group) reaches the
   * caller alone, which decides what to do (the command line asks whether to cancel a crawl).
   */
  readonly ownGroup?: boolean;
}

/** The embedded service's key: WDS_API_KEY, API_KEY, else derived from the server secret. */
export function embeddedKey(command: McpCommandEnvironment): string {
  if (command.apiKey) return command.apiKey;
  const config = loadConfig(command.env);
  if (config.apiKey !== null) return config.apiKey;
  return `wds_mcp_${createHmac('sha256', serverWebhookSecret(config)).update('web-data-service mcp stdio key').digest('base64url')}`;
}

/** Starts `script --role all` as a child process on a loopback port. */
export function startEmbeddedChild(script: string, command: McpCommandEnvironment, options: EmbeddedChildOptions): EmbeddedChild {
  const key = embeddedKey(command);
  const child = spawn(process.execPath, [...process.execArgv, script, '--role', 'all'], {
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    detached: options.ownGroup === true,
    env: { ...command.env, ...options.env, API_KEY: key, PORT: '0', HOST: '127.0.0.1' },
  });
  let seen = '';
  const ready = new Promise<{ base: string; key: string }>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the embedded service did not start listening within ${EMBEDDED_START_MS / 1000} s`)), EMBEDDED_START_MS);
    child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
      options.output(chunk);
      if (seen.length < 1_000_000) seen += chunk;
      const match = /listening on (http:\/\/[\w.:[\]-]+)/.exec(seen);
      if (match) {
        clearTimeout(timer);
        resolve({ base: match[1] as string, key });
      }
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`the embedded service exited (${signal ?? `code ${String(code)}`}) before it was listening`));
    });
  });
  ready.catch(() => undefined);
  child.stderr?.on('data', (chunk: Buffer) => options.output(chunk));
  let stopping: Promise<void> | null = null;
  const stop = () =>
    (stopping ??= new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      const kill = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS);
      child.once('exit', () => {
        clearTimeout(kill);
        resolve();
      });
      child.kill('SIGTERM');
    }));
  return { child, ready, stop };
}
