import { ERRORS, isErrorCode, type ErrorCode } from '../../schemas/errors.js';

/**
 * An error the service means to report. It carries a stable `code` from the table in
 * schemas/errors.ts; code that handles errors matches on `code`, never on `instanceof`,
 * so the same check works on an error that crossed a process boundary as plain data.
 */
export class AppError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly retriable: boolean;
  /** Extra response headers, e.g. Retry-After for `rate_limited`. */
  readonly headers: Readonly<Record<string, string>>;

  constructor(
    code: ErrorCode,
    message: string,
    options: { cause?: unknown; headers?: Record<string, string> } = {},
  ) {
    super(message, { cause: options.cause });
    this.name = 'AppError';
    this.code = code;
    this.status = ERRORS[code].status;
    this.retriable = ERRORS[code].retriable;
    this.headers = options.headers ?? {};
  }
}

export function hasCode(error: unknown, code: ErrorCode): boolean {
  return errorCode(error) === code;
}

/**
 * The `code` an error carries, when it is a string: one of ours (schemas/errors.ts), a Node
 * system error's (`ECONNREFUSED`), a library's. Matching by code works across process
 * boundaries, where `instanceof` does not.
 */
export function errorCode(error: unknown): string | undefined {
  const code = typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined;
  return typeof code === 'string' ? code : undefined;
}

/** The error's code when it is one of the service's (schemas/errors.ts), else `fallback`. */
export function serviceCode(error: unknown, fallback: ErrorCode = 'internal_error'): ErrorCode {
  const code = errorCode(error);
  return code !== undefined && isErrorCode(code) ? code : fallback;
}
