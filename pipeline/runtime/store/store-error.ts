/**
 * Turns whatever a driver threw — a chdb error, a @clickhouse/client ClickHouseError, a
 * socket error — into the one error the store raises: an AppError with code
 * `store_unavailable` (retriable: no answer, or a transient engine condition such as a
 * timeout or memory limit) or `store_rejected` (not retriable: the engine refused this very
 * statement — bad SQL, unknown table, bad parameter, wrong credentials). Its message is `<driver>: <ClickHouse's own message>`; the ClickHouse
 * exception code and name (62, 'SYNTAX_ERROR') ride along when the engine gave them, and
 * the original error is the `cause`.
 */
import { AppError } from '../errors.js';
import { trimEndOf } from '../trim.js';

export type Driver = 'chdb' | 'clickhouse';

export class StoreError extends AppError {
  /** ClickHouse's exception code (e.g. 62 for a syntax error); null when the engine gave none. */
  readonly clickhouseCode: number | null;
  /** ClickHouse's exception name (e.g. 'SYNTAX_ERROR'); null when the engine gave none. */
  readonly clickhouseType: string | null;

  constructor(
    message: string,
    options: { cause?: unknown; clickhouseCode?: number | null; clickhouseType?: string | null; rejected?: boolean } = {},
  ) {
    const rejected = options.rejected ?? !retriableEngineCode(options.clickhouseCode ?? null);
    super(rejected ? 'store_rejected' : 'store_unavailable', message, { cause: options.cause });
    this.name = 'StoreError';
    this.clickhouseCode = options.clickhouseCode ?? null;
    this.clickhouseType = options.clickhouseType ?? null;
  }
}

/**
 * ClickHouse exception codes that may clear up on their own: timeouts, overload, memory,
 * network and replication trouble, a cancelled query.
 */
const TRANSIENT_ENGINE_CODES = new Set([
  159, 160, 164, 202, 209, 210, 241, 242, 252, 279, 285, 319, 394, 425, 473, 999, 1000,
]);

/** No engine code (no answer at all) or a transient one. */
function retriableEngineCode(code: number | null): boolean {
  return code === null || TRANSIENT_ENGINE_CODES.has(code);
}

/**
 * `Code: 62. DB::Exception: <text>. (SYNTAX_ERROR) (version …)` — the engine's error text, read
 * as the pattern
 * `^Code:\s*(\d+)\.\s*(?:DB::Exception:\s*)?([\s\S]*?)\s*(?:\(([A-Z][A-Z0-9_]{2,})\))?(?:\s*\(version [^)]*\))?\s*\.?\s*$`
 * reads it, but without backtracking: the text may carry outside input (the engine quotes a
 * bound parameter's value, or a literal of the statement, whole: 100,000 characters and more),
 * and that pattern was quadratic over it (its lazy text tried the tail's `\s*` from every
 * character of a long run of spaces). The head is a plain anchored pattern; the tail is taken
 * off from the end, one pass: `.`, the `(version …)`, the `(NAME)`, and the spaces around them.
 */
const ENGINE_HEAD = /^Code:\s*(\d+)\.\s*(?:DB::Exception:\s*)?/;
const TYPE_CHAR = /^[A-Z0-9_]$/;
const VERSION = '(version ';

/** `text` cut before its whitespace run ending at `end`. */
const spacesBefore = (text: string, end: number): number => text.slice(0, end).trimEnd().length;

/**
 * Where the tail of the engine's text (after `Code: N. DB::Exception: `) starts — the longest
 * end of `rest` written `\s*(?:\((NAME)\))?(?:\s*\(version [^)]*\))?\s*\.?\s*` — and the NAME.
 */
function engineTail(rest: string): { at: number; type: string | null } {
  let end = spacesBefore(rest, rest.length);
  if (rest[end - 1] === '.') end = spacesBefore(rest, end - 1);
  if (rest[end - 1] === ')') {
    // `(version [^)]*)`: the first `(version ` after the `)` before this one.
    const after = end >= 2 ? rest.lastIndexOf(')', end - 2) + 1 : 0;
    const version = rest.indexOf(VERSION, after);
    if (version >= 0 && version + VERSION.length <= end - 1) end = spacesBefore(rest, version);
  }
  let type: string | null = null;
  if (rest[end - 1] === ')') {
    let start = end - 1;
    while (start > 0 && TYPE_CHAR.test(rest[start - 1] as string)) start -= 1;
    if (rest[start - 1] === '(' && end - 1 - start >= 3 && /^[A-Z]$/.test(rest[start] as string)) {
      type = rest.slice(start, end - 1);
      end = start - 1;
    }
  }
  return { at: spacesBefore(rest, end), type };
}

/** The engine's text read (see ENGINE_HEAD), or null when `message` does not start `Code: N.`. */
function engineMessage(message: string): { code: string; text: string; type: string | null } | null {
  const head = ENGINE_HEAD.exec(message);
  if (!head) return null;
  const rest = message.slice(head[0].length);
  const tail = engineTail(rest);
  return { code: head[1] as string, text: rest.slice(0, tail.at), type: tail.type };
}

/** `text` without its run of whitespace and dots at the end (`/[\s.]+$/` replaced by ''), in one pass. */
function trimSpacesAndDots(text: string): string {
  for (let rest = text; ; ) {
    const trimmed = trimEndOf(rest.trimEnd(), '.');
    if (trimmed.length === rest.length) return rest;
    rest = trimmed;
  }
}

interface Parsed {
  text: string;
  code: number | null;
  type: string | null;
}

function numberOrNull(value: unknown): number | null {
  const n = typeof value === 'number' ? value : typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : NaN;
  return Number.isFinite(n) ? n : null;
}

function parse(error: unknown): Parsed {
  if (!(error instanceof Error)) return { text: String(error), code: null, type: null };
  const fields = error as Error & { clickhouseCode?: unknown; code?: unknown; type?: unknown };
  const engine = engineMessage(error.message);
  if (engine) return { text: engine.text, code: numberOrNull(engine.code), type: engine.type };
  // @clickhouse/client's ClickHouseError: message already stripped, code a numeric string.
  const type = typeof fields.type === 'string' && /^[A-Z][A-Z0-9_]+$/.test(fields.type) ? fields.type : null;
  const code = numberOrNull(fields.clickhouseCode) ?? (type ? numberOrNull(fields.code) : null);
  return { text: error.message, code, type };
}

/** The StoreError for `error`; an AppError passes through unchanged. */
export function storeError(driver: Driver, error: unknown): AppError {
  if (error instanceof AppError) return error;
  const parsed = parse(error);
  const { code, type } = parsed;
  const text = trimSpacesAndDots(parsed.text);
  const label = code !== null ? ` [${type ?? 'code'} ${code}]` : '';
  return new StoreError(`${driver}: ${text}${label}`, { cause: error, clickhouseCode: code, clickhouseType: type });
}
