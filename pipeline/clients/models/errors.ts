/**
 * What a provider's failure means, and the error code it becomes (schemas/errors.ts).
 *
 * Reading a failure (`readFailure`): the HTTP status, the provider's error `type`/`code` from its
 * body (OpenAI `{error:{message,type,param,code}}`, Anthropic `{type:'error', error:{type,
 * message}}`), and its retry advice (`retry-after-ms`, else `retry-after` in seconds or as an
 * HTTP date). Worth another attempt: 429 (except OpenAI's `insufficient_quota`: out of credit,
 * not busy), 5xx, Anthropic's 529 `overloaded_error`, and a connection that failed. Never 400,
 * 401, 403, 404.
 *
 * The codes (`toAppError`), once retries are spent:
 * - 401/403, and 429 `insufficient_quota`: the caller's key → `model_key_rejected` (their 400);
 *   the operator's → `model_failed`, saying the operator's key was rejected. A 404 (no such model,
 *   or the key has no access to it) goes the same way.
 * - 429 → `model_rate_limited` (with the provider's Retry-After when it gave one); 5xx, 529, a
 *   refused connection, any other 4xx → `model_failed`; the time budget spent → `model_timeout`.
 *
 * Messages never carry the key (a provider may echo it: it is replaced by `***`, and a key
 * rejection quotes nothing the provider said), nor the request (the SDK's error holds the whole
 * request body; it is never attached as `cause`), and the provider's own message is cut short.
 */
import type { APICallError } from 'ai';
import { AppError } from '../../runtime/errors.js';
import type { ModelChoice } from './config.js';

export type FailureKind = 'key' | 'quota' | 'no-model' | 'rate-limited' | 'overloaded' | 'server' | 'connection' | 'request' | 'response';

export interface Failure {
  readonly kind: FailureKind;
  readonly status: number | null;
  /** The provider's error type or code (`invalid_api_key`, `overloaded_error`), when it said. */
  readonly type: string | null;
  /** The provider's message, key-scrubbed and cut short. */
  readonly message: string;
  /** The provider's advised wait before another attempt, in ms. */
  readonly retryAfterMs: number | null;
  readonly retriable: boolean;
  /** The raw error body, key-scrubbed (for the JSON-mode fallback's test of a 400). */
  readonly body: string;
}

const PROVIDER_LABELS = { openai: 'OpenAI', anthropic: 'Anthropic', 'openai-compatible': 'the openai-compatible server' } as const;
const MAX_MESSAGE_CHARS = 300;

export function providerLabel(model: ModelChoice): string {
  return PROVIDER_LABELS[model.provider];
}

/**
 * The AI SDK's own test of its APICallError (`APICallError.isInstance`), without importing the
 * SDK: it marks its errors with a registered symbol (`Symbol.for`, so that errors of another
 * copy of the package are recognised too), and reading it here keeps `ai` (~8 MB of heap, with
 * zod) out of a process until its first model call imports the session (generate.ts).
 */
const API_CALL_ERROR = Symbol.for('vercel.ai.error.AI_APICallError');

export function isApiCallError(error: unknown): error is APICallError {
  return typeof error === 'object' && error !== null && (error as Record<symbol, unknown>)[API_CALL_ERROR] === true;
}

/** The failure an SDK error describes, or null when it is not a provider's answer (an abort, our own AppError). */
export function readFailure(error: unknown, model: ModelChoice): Failure | null {
  if (!isApiCallError(error)) return null;
  const status = error.statusCode ?? null;
  const body = scrub(error.responseBody ?? '', model.apiKey);
  const detail = errorDetail(body);
  const message = cut(detail.message ?? scrub(error.message, model.apiKey));
  const kind = kindOf(status, detail.type, error.isRetryable);
  const retriable = kind === 'rate-limited' || kind === 'overloaded' || kind === 'server' || kind === 'connection';
  return { kind, status, type: detail.type, message, retryAfterMs: retryAfterMs(error.responseHeaders), retriable, body };
}

function kindOf(status: number | null, type: string | null, retryable: boolean): FailureKind {
  if (status === null) return retryable ? 'connection' : 'response';
  if (status === 401 || status === 403) return 'key';
  if (status === 404) return 'no-model';
  if (status === 429) return type === 'insufficient_quota' ? 'quota' : 'rate-limited';
  if (status === 529 || type === 'overloaded_error') return 'overloaded';
  if (status >= 500) return 'server';
  if (status >= 400) return 'request';
  return 'response'; // a 2xx the SDK could not read
}

/** The provider's error type (or code) and message from an OpenAI- or Anthropic-shaped body. */
function errorDetail(body: string): { type: string | null; message: string | null } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return { type: null, message: null };
  }
  const error = isObject(parsed) && isObject(parsed.error) ? parsed.error : null;
  if (error === null) return { type: null, message: null };
  const code = typeof error.code === 'string' ? error.code : null;
  const type = typeof error.type === 'string' ? error.type : null;
  // OpenAI's `code` is the precise one (`insufficient_quota`, `invalid_api_key`); Anthropic has only `type`.
  const chosen = code === 'insufficient_quota' || type === 'insufficient_quota' ? 'insufficient_quota' : (code ?? type);
  return { type: chosen, message: typeof error.message === 'string' ? error.message : null };
}

/** Milliseconds from `retry-after-ms`, else `retry-after` (seconds or an HTTP date); null when absent or unreadable. */
export function retryAfterMs(headers: Record<string, string> | undefined, now = Date.now()): number | null {
  if (!headers) return null;
  const ms = headers['retry-after-ms'];
  if (ms !== undefined && ms.trim() !== '' && Number.isFinite(Number(ms))) return Math.max(0, Number(ms));
  const value = headers['retry-after']?.trim();
  if (!value) return null;
  if (Number.isFinite(Number(value))) return Math.max(0, Number(value) * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}

/** The service's error for a failure, once no attempt is left. */
export function failureError(failure: Failure, model: ModelChoice): AppError {
  const who = providerLabel(model);
  const said = `${who} answered ${describeStatus(failure)}`;
  switch (failure.kind) {
    case 'key':
    case 'quota':
    case 'no-model':
      return keyError(failure, model, said);
    case 'rate-limited': {
      const seconds = failure.retryAfterMs === null ? null : Math.max(1, Math.ceil(failure.retryAfterMs / 1000));
      return new AppError('model_rate_limited', `${said} (rate limited) after the retries MODEL_MAX_RETRIES allows: ${failure.message}`, {
        headers: seconds === null ? {} : { 'Retry-After': String(seconds) },
      });
    }
    case 'connection':
      return new AppError('model_failed', `${who} could not be reached: ${failure.message}`);
    default:
      return new AppError('model_failed', `${said}: ${failure.message}`);
  }
}

function keyError(failure: Failure, model: ModelChoice, said: string): AppError {
  const reason =
    failure.kind === 'quota' ? 'is out of quota' : failure.kind === 'no-model' ? `has no model "${model.name}" (or no access to it)` : 'was rejected';
  if (model.owner === 'caller') return new AppError('model_key_rejected', `${said}: the key given in model.apiKey ${reason}`);
  return new AppError('model_failed', `${said}: the operator's key (MODEL_API_KEY) ${reason}`);
}

function describeStatus(failure: Failure): string {
  return failure.status === null ? 'nothing' : failure.type === null ? String(failure.status) : `${failure.status} ${failure.type}`;
}

/** `text` with every occurrence of the key replaced by `***`. */
export function scrub(text: string, key: string | null): string {
  return key && key.length > 0 ? text.split(key).join('***') : text;
}

function cut(text: string): string {
  return text.length <= MAX_MESSAGE_CHARS ? text : `${text.slice(0, MAX_MESSAGE_CHARS)}…`;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}
