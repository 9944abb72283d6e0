import { pino, type Logger, type LoggerOptions } from 'pino';

export type { Logger };

/**
 * Paths that may hold secrets. Keys and provider keys are never written to a log line: the
 * gateway logs no request headers or bodies, and these paths are censored as a second guard.
 */
export const REDACT_PATHS = [
  'req.headers.authorization',
  'headers.authorization',
  'authorization',
  'apiKey',
  'key',
  'body.model.apiKey',
  'config.apiKey',
];

export function loggerOptions(level: string): LoggerOptions {
  return {
    level,
    base: { service: 'web-data-service' },
    redact: { paths: REDACT_PATHS, censor: '***' },
  };
}

/** Bytes of log lines held before one write to standard output. */
const LOG_BUFFER_BYTES = 4096;
/** Longest a held line waits for the next write. */
const LOG_FLUSH_MS = 100;

/**
 * The root logger; subsystems take `log.child({actor: 'fetcher'})` and so on. Lines to
 * standard output are held until 4 KiB are pending and then written in one synchronous
 * write, and at least every 100 ms. One write per line, or an asynchronous write per tick
 * (which goes through libuv's thread pool), cost the gateway's small requests about 6 µs
 * each (bench/gateway.ts, the 422 path: 43 → 37 µs of CPU per request). What is pending is
 * written when the process exits, `process.exit()` included, so a fatal line is never lost.
 */
export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  return pino(loggerOptions(level), destination ?? bufferedStdout());
}

let stdout: ReturnType<typeof pino.destination> | null = null;

/** The one buffered standard-output destination of this process, shared by its loggers. */
function bufferedStdout(): ReturnType<typeof pino.destination> {
  if (stdout) return stdout;
  const dest = pino.destination({ dest: 1, sync: true, minLength: LOG_BUFFER_BYTES });
  const flush = () => {
    try {
      dest.flushSync();
    } catch {
      // Standard output is gone (EPIPE): nothing more can be written.
    }
  };
  setInterval(flush, LOG_FLUSH_MS).unref();
  process.once('exit', flush);
  stdout = dest;
  return dest;
}

/** A logger on standard error, for command-line tools whose standard output is their answer. */
export function createStderrLogger(level: string): Logger {
  return pino(loggerOptions(level), pino.destination({ dest: 2, sync: true }));
}
