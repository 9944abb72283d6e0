/**
 * A request's logger (`request.log`, `reply.log`): pino's child bound to the request id,
 * created on its first line. Most requests write only their access-log line, which the access
 * log writes through the parent with the id as the first field (`withoutChild`): the same
 * bytes as the child would write, without building a child (its bindings serialized, a
 * logger object set up) per request.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { Bindings, ChildLoggerOptions, Level } from 'pino';
import type { Logger } from '../pipeline/log.js';

export class RequestLog implements FastifyBaseLogger {
  private bound: Logger | undefined;

  constructor(
    private readonly parent: Logger,
    private readonly bindings: Bindings,
  ) {}

  /** The pino child itself: for handlers, which get the whole pino API. */
  get logger(): Logger {
    this.bound ??= this.parent.child(this.bindings);
    return this.bound;
  }

  get level(): string {
    return (this.bound ?? this.parent).level;
  }

  set level(level: string) {
    this.logger.level = level;
  }

  // Methods, not per-instance closures: this object is made for every request.
  fatal(...args: unknown[]): void {
    this.line('fatal', args);
  }
  error(...args: unknown[]): void {
    this.line('error', args);
  }
  warn(...args: unknown[]): void {
    this.line('warn', args);
  }
  info(...args: unknown[]): void {
    this.line('info', args);
  }
  debug(...args: unknown[]): void {
    this.line('debug', args);
  }
  trace(...args: unknown[]): void {
    this.line('trace', args);
  }
  silent(): void {}

  private line(level: Level, args: unknown[]): void {
    // A line below the level would be dropped: no child for it.
    if (!this.bound && !this.parent.isLevelEnabled(level)) return;
    const logger = this.logger;
    Reflect.apply(logger[level], logger, args);
  }

  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
    return this.logger.child(bindings, options);
  }

  /** The parent, while no child was made: a line through it with the bindings first is the child's line. */
  withoutChild(): Logger | undefined {
    return this.bound ? undefined : this.parent;
  }
}

/**
 * Fastify's `childLoggerFactory`. A route with its own level or serializers gets pino's child
 * at once, since its lines would differ from the parent's.
 */
export function requestLog(parent: FastifyBaseLogger, bindings: Bindings, options: ChildLoggerOptions): FastifyBaseLogger {
  if (options.level !== undefined || options.serializers !== undefined) return parent.child(bindings, options);
  return new RequestLog(parent as Logger, bindings);
}

/** The pino logger behind a request's logger, for code that takes a whole pino Logger. */
export function pinoLoggerOf(log: FastifyBaseLogger): Logger {
  return log instanceof RequestLog ? log.logger : (log as Logger);
}
