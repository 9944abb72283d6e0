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

/**
 * The root logger; subsystems take `log.child({actor: 'fetcher'})` and so on. Standard output
 * is written asynchronously (lines written in one tick go out in one write, instead of one
 * blocking write per line); pino flushes what is pending when the process exits.
 */
export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  return pino(loggerOptions(level), destination ?? pino.destination({ dest: 1, sync: false }));
}

/** A logger on standard error, for command-line tools whose standard output is their answer. */
export function createStderrLogger(level: string): Logger {
  return pino(loggerOptions(level), pino.destination({ dest: 2, sync: true }));
}
