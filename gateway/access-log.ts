/**
 * One access-log line per request, written as the response is handed to Node: request id,
 * method, path (without the query string, which may hold a caller's target URL), status and
 * the time the gateway took. Headers and bodies are never logged.
 *
 * Fastify runs without a logger of its own (gateway/app.ts): with one, it hangs two listeners
 * on every response to log at 'finish', makes a child logger per request and builds its log
 * lines through pino's generic path, together a fifth of a small request's CPU (a 422). The
 * line is written here instead, by the code that sends each answer (gateway/routes.ts, the
 * error handlers) or an onSend hook on the few other routes, through the same pino
 * destination with the same bytes pino writes for
 * `log.child({reqId}).info({method, path, status, ms}, 'request')` (test/gateway/access-log.test.ts
 * holds the two equal).
 */
import { performance } from 'node:perf_hooks';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { pino } from 'pino';
import type { Logger } from '../pipeline/runtime/log.js';
import type { HttpMeter } from './http-metrics.js';
import { jsonString, tenthsJson } from './json.js';

const START = Symbol('requestStart');

type Stamped = { [START]?: number };

/** Notes when a request arrived; called from the request-id generator, the first code to see it. */
export function stampArrival(raw: object): void {
  (raw as Stamped)[START] = performance.now();
}

/** The path of a request URL: without the query string, which may hold a caller's target URL. */
function pathOf(url: string): string {
  const query = url.indexOf('?');
  return query < 0 ? url : url.slice(0, query);
}

/** Tenths of a millisecond since the request arrived (0 when its arrival was not noted). */
function elapsedTenths(request: FastifyRequest): number {
  const start = (request.raw as Stamped)[START];
  return start === undefined ? 0 : Math.round((performance.now() - start) * 10);
}

/** Fields pino writes from the logger itself: bindings as JSON text, the clock, the stream. */
interface PinoInternals {
  [pino.symbols.chindingsSym]: string;
  [pino.symbols.streamSym]: pino.DestinationStream;
  [pino.symbols.timeSym]: () => string;
}

const epochTime = pino.stdTimeFunctions.epochTime;

export class AccessLog {
  private readonly internals: PinoInternals;
  private readonly info: number;
  /** The line's start for the last millisecond seen, made once per millisecond (see `head`). */
  private headMs = -1;
  private headBindings = '';
  private headText = '';
  /**
   * The line's middle (method, path, status, up to the elapsed time's value) for the last
   * method, URL and status seen: most requests in a row are alike (a client repeating one
   * call), and then the path is neither cut from its query nor escaped again, and the line is
   * joined from four pieces instead of a dozen.
   */
  private middleMethod = '';
  private middleUrl = '';
  private middleStatus = 0;
  private middleText = '';

  /**
   * `meter` counts each answer (gateway/http-metrics.ts) when the process keeps metrics;
   * `onAnswer` sees every answer this log writes a line for, whatever the log level (the
   * dashboard's request rows, gateway/usage.ts).
   */
  constructor(
    private readonly log: Logger,
    private readonly meter: HttpMeter | null = null,
    private readonly onAnswer: ((request: FastifyRequest, reply: FastifyReply) => void) | null = null,
  ) {
    this.internals = log as unknown as PinoInternals;
    this.info = log.levels.values.info as number;
  }

  /**
   * The line for this response, unless `info` is off. The request id and the method are
   * written without escaping: ids are checked against gateway/app.ts REQUEST_ID or made
   * there from base64url and base-36 digits, and Node's parser accepts only known methods,
   * so neither holds a character JSON escapes. The path is escaped.
   */
  write(request: FastifyRequest, reply: FastifyReply, operation?: string): void {
    if (this.onAnswer !== null) this.onAnswer(request, reply);
    const logged = this.log.isLevelEnabled('info');
    if (!logged && this.meter === null) return;
    const tenths = elapsedTenths(request);
    this.meter?.record(request, reply, tenths / 10, operation);
    if (!logged) return;
    const url = request.url;
    const own = this.internals;
    const stream = own[pino.symbols.streamSym] as pino.DestinationStream & { [pino.symbols.needsMetadataGsym]?: boolean };
    if (stream[pino.symbols.needsMetadataGsym]) {
      // A destination that wants the level and object beside the text (pino.multistream).
      this.log.info({ reqId: request.id, method: request.method, path: pathOf(url), status: reply.statusCode, ms: tenths / 10 }, 'request');
      return;
    }
    stream.write(`${this.head(own[pino.symbols.timeSym], own[pino.symbols.chindingsSym])}${request.id}${this.middle(request.method, url, reply.statusCode)}${tenthsJson(tenths)},"msg":"request"}\n`);
  }

  /** `","method":…,"path":…,"status":…,"ms":` for this answer, made again only when one of the three changed. */
  private middle(method: string, url: string, status: number): string {
    if (url !== this.middleUrl || method !== this.middleMethod || status !== this.middleStatus) {
      this.middleMethod = method;
      this.middleUrl = url;
      this.middleStatus = status;
      this.middleText = `","method":"${method}","path":${jsonString(pathOf(url))},"status":${status},"ms":`;
    }
    return this.middleText;
  }

  /**
   * The line up to the request id's value: level, the logger's clock and bindings, `"reqId":"`.
   * pino's default clock writes `Date.now()`, a number too large for V8's small integers, and
   * formatting it was most of the line's cost: the head is made once per millisecond (several
   * requests) instead, the same text. Any other clock is called for every line.
   */
  private head(clock: () => string, bindings: string): string {
    if (clock !== epochTime) return `{"level":${this.info}${clock()}${bindings},"reqId":"`;
    const now = Date.now();
    if (now !== this.headMs || bindings !== this.headBindings) {
      this.headMs = now;
      this.headBindings = bindings;
      this.headText = `{"level":${this.info},"time":${now}${bindings},"reqId":"`;
    }
    return this.headText;
  }
}
