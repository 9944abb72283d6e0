import { ERRORS, type ErrorCode } from '../../schemas/errors.js';

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
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === code;
}
