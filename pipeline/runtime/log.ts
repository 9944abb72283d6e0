import { writeSync } from 'node:fs';
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

/** Characters of log lines held before one write to standard output. */
const LOG_BUFFER_CHARS = 4096;
/** Longest a held line waits for the next write. */
const LOG_FLUSH_MS = 100;
/** Pause before trying again when a non-blocking standard output is full (EAGAIN). */
const BUSY_WAIT_MS = 10;

/**
 * The root logger; subsystems take `log.child({actor: 'fetcher'})` and so on. Lines to
 * standard output are held until 4 Ki characters are pending and then written in one
 * synchronous write, and at least every 100 ms. One write per line, or an asynchronous write
 * per tick (which goes through libuv's thread pool), cost the gateway's small requests about
 * 6 µs each (bench/gateway.ts, the 422 path: 43 → 37 µs of CPU per request). What is pending
 * is written when the process exits, `process.exit()` included, so a fatal line is never lost.
 */
export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  return pino(loggerOptions(level), destination ?? bufferedStdout());
}

/**
 * Lines held in memory and written to a file descriptor in batches. sonic-boom's buffered
 * mode measured the byte length of everything pending on every line (a 4 KiB string
 * flattened per line, ~2 µs of a small request) and copied each batch once more after
 * writing it; this keeps a character count and encodes a batch once.
 */
export class BufferedLines implements pino.DestinationStream {
  private pending = '';
  /** Set when the descriptor cannot be written any more (EPIPE, EBADF): lines are dropped. */
  private broken = false;

  constructor(
    private readonly fd: number,
    private readonly minChars: number,
  ) {}

  write(line: string): void {
    this.pending += line;
    if (this.pending.length >= this.minChars) this.flushSync();
  }

  /** pino's `logger.flush(cb)`. */
  flush(cb?: (error?: Error) => void): void {
    this.flushSync();
    cb?.();
  }

  /** Writes everything pending, waiting out a full pipe; never throws. */
  flushSync(): void {
    const text = this.pending;
    if (text === '') return;
    this.pending = '';
    if (this.broken) return;
    try {
      // The string as it is (encoded natively, no Buffer per batch); bytes >= characters, so
      // the byte length is measured only when the write may have been whole.
      const written = writeSync(this.fd, text);
      if (written < text.length || written < Buffer.byteLength(text)) this.writeAll(Buffer.from(text, 'utf8').subarray(written));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EAGAIN') this.writeAll(Buffer.from(text, 'utf8'));
      else this.broken = true; // Standard output is gone: nothing more can be written.
    }
  }

  /** The rest of a batch after a partial write or EAGAIN. */
  private writeAll(bytes: Buffer): void {
    let offset = 0;
    while (offset < bytes.length) {
      try {
        offset += writeSync(this.fd, bytes, offset, bytes.length - offset);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') {
          this.broken = true;
          return;
        }
        Atomics.wait(busyWait, 0, 0, BUSY_WAIT_MS);
      }
    }
  }
}

const busyWait = new Int32Array(new SharedArrayBuffer(4));

let stdout: BufferedLines | null = null;

/** The one buffered standard-output destination of this process, shared by its loggers. */
function bufferedStdout(): BufferedLines {
  if (stdout) return stdout;
  const dest = new BufferedLines(1, LOG_BUFFER_CHARS);
  setInterval(() => dest.flushSync(), LOG_FLUSH_MS).unref();
  process.once('exit', () => dest.flushSync());
  stdout = dest;
  return dest;
}

/** A logger on standard error, for command-line tools whose standard output is their answer. */
export function createStderrLogger(level: string): Logger {
  return pino(loggerOptions(level), pino.destination({ dest: 2, sync: true }));
}
