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

/** `Code: 62. DB::Exception: <text>. (SYNTAX_ERROR) (version …)` — the engine's error text. */
const ENGINE_MESSAGE = /^Code:\s*(\d+)\.\s*(?:DB::Exception:\s*)?([\s\S]*?)\s*(?:\(([A-Z][A-Z0-9_]{2,})\))?(?:\s*\(version [^)]*\))?\s*\.?\s*$/;

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
  const match = ENGINE_MESSAGE.exec(error.message);
  if (match) {
    return { text: match[2] ?? error.message, code: numberOrNull(match[1]), type: match[3] ?? null };
  }
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
  const text = parsed.text.replace(/[\s.]+$/, '');
  const label = code !== null ? ` [${type ?? 'code'} ${code}]` : '';
  return new StoreError(`${driver}: ${text}${label}`, { cause: error, clickhouseCode: code, clickhouseType: type });
}
