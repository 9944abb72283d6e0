/**
 * The command line's way to the API: one HTTP request per call, to a running service (`--url`
 * or WDS_URL, with `--key` or WDS_API_KEY) or to the embedded service the command starts in a
 * child process (pipeline/service/embedded.ts: the same code `npm start` runs, on the same
 * settings: DATA_DIR, …). Either way keys, credits, rate limits and the SSRF guard apply as
 * they do to any caller.
 *
 * A failure is a `CliError` carrying the envelope's code and the exit code it maps to
 * (`exitCodeOf`): 2 bad input, 4 refused (key, credits, a blocked URL, a rate limit), 5 the
 * service unavailable (unreachable, 500, 501, 503, 504), 1 any other failure (a page that
 * could not be read: 502).
 */
import { realpathSync } from 'node:fs';
import { ERRORS } from '../schemas/errors.js';
import type { McpCommandEnvironment } from '../pipeline/service/config.js';
import { startEmbeddedChild, type EmbeddedChild } from '../pipeline/service/embedded.js';

export const EXIT = { ok: 0, failed: 1, badInput: 2, partial: 3, refused: 4, unavailable: 5 } as const;

export class CliError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly exitCode: number,
  ) {
    super(message);
  }
}

/** The exit code of an API failure, from its HTTP status (the code's status in schemas/errors.ts when the code is known). */
export function exitCodeOf(code: string, status: number): number {
  const known = (ERRORS as Record<string, { status: number } | undefined>)[code];
  const s = known?.status ?? status;
  if ([400, 404, 405, 409, 413, 415, 422, 431].includes(s)) return EXIT.badInput;
  if ([401, 402, 403, 429].includes(s)) return EXIT.refused;
  if ([500, 501, 503, 504].includes(s)) return EXIT.unavailable;
  return EXIT.failed;
}

export interface CallOptions {
  readonly query?: Readonly<Record<string, unknown>>;
  readonly body?: unknown;
  /** A multipart body (POST /v1/parse). */
  readonly form?: FormData;
  /** Answer the raw bytes (GET /v1/fetch) instead of the envelope's `data`. */
  readonly raw?: boolean;
}

export interface Api {
  /** The envelope's `data` (or, `raw`, the bytes); throws CliError on a failure. */
  call(method: string, path: string, options?: CallOptions): Promise<unknown>;
  /** Stops the embedded service, if this command started one. */
  close(): Promise<void>;
}

type Json = Record<string, unknown>;

function queryString(query: Readonly<Record<string, unknown>> | undefined): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query ?? {})) {
    if (v !== undefined && v !== null) params.set(k, typeof v === 'string' ? v : JSON.stringify(v));
  }
  const s = params.toString();
  return s ? `?${s}` : '';
}

/** The error of a failed answer: the envelope's code and message, or a 422's `detail`. */
function failureOf(status: number, text: string): CliError {
  let body: Json | null = null;
  try {
    body = JSON.parse(text) as Json;
  } catch {
    body = null;
  }
  if (Array.isArray(body?.detail)) {
    const lines = (body.detail as Json[]).map((d) => `${Array.isArray(d.loc) ? d.loc.join('.') : ''}: ${String(d.msg)}`);
    return new CliError('validation_failed', lines.join('; '), EXIT.badInput);
  }
  const error = (body?.error ?? {}) as Json;
  const code = typeof error.code === 'string' ? error.code : `http_${status}`;
  const message = typeof error.message === 'string' ? error.message : text.slice(0, 300) || `HTTP ${status}`;
  return new CliError(code, message, exitCodeOf(code, status));
}

async function request(base: string, key: string, method: string, path: string, options: CallOptions): Promise<unknown> {
  const headers: Record<string, string> = { authorization: `Bearer ${key}` };
  let body: string | FormData | undefined;
  if (options.form) body = options.form;
  else if (options.body !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(options.body);
  }
  let res: Response;
  try {
    res = await fetch(`${base.replace(/\/+$/, '')}${path}${queryString(options.query)}`, { method, headers, ...(body === undefined ? {} : { body }) });
  } catch (error) {
    const why = error instanceof Error && error.cause instanceof Error ? error.cause.message : String(error);
    throw new CliError('service_unreachable', `could not reach the service at ${base}: ${why}`, EXIT.unavailable);
  }
  if (options.raw && res.ok) return new Uint8Array(await res.arrayBuffer());
  const text = await res.text();
  if (!res.ok) throw failureOf(res.status, text);
  let envelope: Json;
  try {
    envelope = JSON.parse(text) as Json;
  } catch {
    throw new CliError('not_the_service', `${base} answered ${path} with something that is not the API's JSON envelope: is it a Web Data Service?`, EXIT.unavailable);
  }
  if (envelope.success === false) throw failureOf(res.status, text);
  return envelope.data;
}

export interface ConnectOptions {
  readonly url: string | undefined;
  readonly key: string | undefined;
  readonly environment: McpCommandEnvironment;
  /** The entry point that runs the service (main.js), started again for the embedded mode. */
  readonly script: string;
  /** Where the embedded service's own log lines go (default: kept, shown if it fails to start). */
  readonly serviceOutput?: (chunk: string | Buffer) => void;
  readonly say: (line: string) => void;
}

/** An Api on a running service, or on the embedded service started for this command. */
export function connect(options: ConnectOptions): Api {
  const url = options.url ?? options.environment.url;
  const key = options.key ?? options.environment.apiKey;
  if (url) {
    if (!/^https?:\/\/\S+$/.test(url)) throw new CliError('bad_url', `--url / WDS_URL must be an http(s) URL; got "${url}"`, EXIT.badInput);
    if (!key) throw new CliError('missing_api_key', 'a key is required with --url / WDS_URL: pass --key or set WDS_API_KEY', EXIT.badInput);
    return { call: (method, path, call = {}) => request(url, key, method, path, call), close: async () => undefined };
  }
  let tail = '';
  const output = options.serviceOutput ?? ((chunk: string | Buffer) => void (tail = (tail + chunk.toString()).slice(-4000)));
  let embedded: EmbeddedChild | null = null;
  const started = (): EmbeddedChild => {
    if (embedded) return embedded;
    options.say('starting the embedded service (settings from the environment: DATA_DIR, …); pass --url to use a running one');
    const environment = key ? { ...options.environment, apiKey: key } : options.environment;
    embedded = startEmbeddedChild(realpathSync(options.script), environment, { output, ownGroup: true });
    return embedded;
  };
  return {
    async call(method, path, call = {}) {
      let target: { base: string; key: string };
      try {
        target = await started().ready;
      } catch (error) {
        throw new CliError('service_unavailable', `${error instanceof Error ? error.message : String(error)}${tail ? `\n${tail.trimEnd()}` : ''}`, EXIT.unavailable);
      }
      return request(target.base, target.key, method, path, call);
    },
    close: async () => {
      await (embedded as EmbeddedChild | null)?.stop();
    },
  };
}
