/**
 * The HTTP gateway: Fastify on Node's HTTP server. It routes the 46 operations, serves the
 * OpenAPI document and the reference page, and answers every failure through one error
 * handler. It never fetches a page itself: the operations it serves, and how, are the
 * operation table's (gateway/wiring.ts).
 */
import { randomBytes } from 'node:crypto';
import { createServer, STATUS_CODES, type IncomingMessage, type Server, type ServerOptions, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { ERRORS, type ErrorCode } from '../schemas/errors.js';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import type { Config } from '../pipeline/service/config.js';
import type { Logger } from '../pipeline/runtime/log.js';
import type { KeyRegistry } from '../pipeline/keys/registry.js';
import type { State } from '../pipeline/runtime/state/state.js';
import { Credits } from '../pipeline/keys/credits.js';
import { AccessLog, stampArrival } from './access-log.js';
import { HttpMeter } from './http-metrics.js';
import type { Metrics } from '../pipeline/runtime/metrics/metrics.js';
import { registerDocs } from './docs.js';
import { registerDashboard } from './dashboard/routes.js';
import { UsageRecorder } from './usage.js';
import type { Handlers } from './handler.js';
import { buildOpenApi } from './openapi.js';
import { registerMcp } from './mcp/http.js';
import { servedTools } from './mcp/tools.js';
import { keyHook } from './routes.js';
import { operationHandlers, type PipelineDeps } from './wiring.js';
import { InvalidKeyLimiter, RateLimiter } from './rate-limit.js';
import { clientFailure, errorBody, JSON_TYPE, noRoute, sendError } from './replies.js';
import { refusedJsonBody } from './json-body.js';
import { registerOperations } from './routes.js';
import { registerFirecrawl } from './firecrawl/routes.js';
import { isWatcherUpgrade } from './firecrawl/watcher.js';

export interface GatewayDeps {
  config: Config;
  log: Logger;
  keys: KeyRegistry;
  /** Coordination state shared by gateway processes (rate limits). */
  state: State;
  version: string;
  /**
   * The actors this gateway sends operations to (main.ts); without it only the operations
   * the gateway answers itself are served, the others answer 501.
   */
  pipeline?: PipelineDeps;
  /** Handlers that take the place of the table's, by operation id (tests' stand-ins). */
  handlers?: Handlers;
  /** The service's clock in ms (default Date.now): request rows' times, the dashboard's "now". */
  now?: () => number;
  /** The process's metrics: every answer counted by operation and status (gateway/http-metrics.ts). */
  metrics?: Metrics;
}

/** A caller's `x-request-id` kept as the request id; gateway/access-log.ts writes ids unescaped on this account. */
const REQUEST_ID = /^[\w.:-]{1,128}$/;

/**
 * Request ids: 16 random characters drawn once per process, then a counter. Unique across
 * processes and restarts (96 random bits), and a fraction of the cost of a UUID per request.
 * Joined rather than concatenated: a join is one flat string, where `+` makes V8 a rope that
 * Node's header check (a regular expression on the `x-request-id` value) flattens through
 * the runtime, the slow path, on every response.
 */
function requestIds(): () => string {
  const prefix = randomBytes(12).toString('base64url');
  let next = 0;
  return () => [prefix, (next++).toString(36)].join('-');
}

/** The caller's own `x-request-id`, when it is one to keep. */
function requestIdOf(req: IncomingMessage): string | undefined {
  const given = req.headers['x-request-id'];
  return typeof given === 'string' && REQUEST_ID.test(given) ? given : undefined;
}

/** The code of a failure Node's HTTP server reports before any request exists. */
function clientErrorCode(error: NodeJS.ErrnoException): ErrorCode {
  if (error.code === 'HPE_HEADER_OVERFLOW') return 'headers_too_large';
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') return 'request_timeout';
  return 'bad_request';
}

const CLIENT_ERROR_MESSAGES: Partial<Record<ErrorCode, string>> = {
  headers_too_large: 'the request line and headers are larger than this server accepts',
  request_timeout: 'the request did not arrive in time',
};

/**
 * Answers on the socket what Node's HTTP parser refused (fastify's `clientErrorHandler`): the
 * error envelope with a request id of its own, then the connection is closed, as Node's own
 * answer would. A reset connection, or one already gone, gets nothing.
 */
export function answerClientError(error: NodeJS.ErrnoException, socket: Duplex, requestId: string, log: Logger): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const code = clientErrorCode(error);
  const message = CLIENT_ERROR_MESSAGES[code] ?? `the request is malformed at the HTTP level${error.code ? ` (${error.code})` : ''}`;
  const body = JSON.stringify(errorBody(code, message, requestId));
  const status = ERRORS[code].status;
  log.child({ reqId: requestId }).info({ status, code, parserCode: error.code }, 'client error');
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\nContent-Type: ${JSON_TYPE}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
        `x-request-id: ${requestId}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(error);
}

/**
 * Whether Node's HTTP server would refuse the request for want of a Host header: HTTP/1.1
 * requires one (RFC 9112, section 3.2: "A server MUST respond with a 400 (Bad Request) status
 * code to any HTTP/1.1 request message that lacks a Host header field"); HTTP/1.0 does not.
 */
function lacksHost(req: IncomingMessage): boolean {
  return req.headers.host === undefined && req.httpVersionMajor === 1 && req.httpVersionMinor === 1;
}

const MISSING_HOST_MESSAGE = 'the Host header is missing; HTTP/1.1 requires one';

/**
 * Answers an HTTP/1.1 request without a Host header: 400 `bad_request` in the envelope with its
 * request id, and the connection closed after it, as Node's own empty 400 closes it.
 */
export function answerMissingHost(res: ServerResponse, requestId: string, log: Logger): void {
  const body = JSON.stringify(errorBody('bad_request', MISSING_HOST_MESSAGE, requestId));
  log.child({ reqId: requestId }).info({ status: 400, code: 'bad_request', parserCode: 'missing_host' }, 'client error');
  res.writeHead(400, ['content-type', JSON_TYPE, 'content-length', String(Buffer.byteLength(body)), 'x-request-id', requestId, 'connection', 'close']);
  res.end(body);
}

/**
 * The gateway's HTTP server (fastify's `serverFactory`): Node's, set up as fastify sets up its
 * own (lib/server.js: the keep-alive, request and connection timeouts and the requests per
 * socket from fastify's options), with two options of ours. Node's own refusal of an HTTP/1.1
 * request without a Host header (`requireHostHeader`) writes an empty 400 before any listener
 * runs, with no body and no request id, so it is turned off and the same request is refused
 * here, by `refuse`, before fastify routes it; every other request goes to fastify's `route`.
 * And only the Firecrawl watcher's WebSockets are upgrades (gateway/firecrawl/watcher.ts): a
 * request offering any other upgrade is served as the plain request it also is (Node 22.21's
 * `shouldUpgradeCallback` is not in @types/node yet).
 */
function gatewayServer(
  route: (req: IncomingMessage, res: ServerResponse) => void,
  options: Record<string, unknown>,
  refuse: (req: IncomingMessage, res: ServerResponse) => void,
): Server {
  const serverOptions = { requireHostHeader: false, shouldUpgradeCallback: isWatcherUpgrade } as ServerOptions;
  const server = createServer(serverOptions, (req, res) => (lacksHost(req) ? refuse(req, res) : route(req, res)));
  server.keepAliveTimeout = options.keepAliveTimeout as number;
  server.requestTimeout = options.requestTimeout as number;
  server.setTimeout(options.connectionTimeout as number);
  if ((options.maxRequestsPerSocket as number) > 0) server.maxRequestsPerSocket = options.maxRequestsPerSocket as number;
  return server;
}

export async function buildGateway(deps: GatewayDeps): Promise<FastifyInstance> {
  const { config } = deps;
  const newRequestId = requestIds();
  const now = deps.now ?? Date.now;
  // Each answered /v1 request of a key is a row for the dashboard's usage panel (gateway/usage.ts).
  const usage = deps.pipeline ? new UsageRecorder(deps.pipeline.records.writer, now, deps.log) : null;
  const accessLog = new AccessLog(deps.log, deps.metrics ? new HttpMeter(deps.metrics) : null, usage && ((request, reply) => usage.record(request, reply)));
  // Every error answer at the root (the error and not-found handlers, framework errors) gets
  // its request id from sendError and its access line here.
  const answerError = (error: unknown, request: FastifyRequest, reply: FastifyReply) => {
    sendError(error, request, reply, deps.log);
    accessLog.write(request, reply);
  };
  const app = Fastify({
    // Fastify gets no logger: with one it hangs listeners on every response for its own
    // access log and builds a child logger per request, most of a small request's overhead.
    // The access line is written by gateway/access-log.ts, and a request's other lines by a
    // child of the service's logger made when one is written (gateway/routes.ts, replies.ts);
    // Fastify's own warnings about misused replies go unlogged.
    logger: false,
    bodyLimit: config.bodyLimitBytes,
    genReqId: (req) => {
      stampArrival(req);
      return requestIdOf(req) ?? newRequestId();
    },
    return503OnClosing: true,
    // Node's HTTP server, with the HTTP/1.1 request that has no Host header answered in the
    // envelope where Node would answer it (see `gatewayServer`).
    serverFactory: (route, options) =>
      gatewayServer(route, options, (req, res) => answerMissingHost(res, requestIdOf(req) ?? newRequestId(), deps.log)),
    // Ids may be up to 128 characters (schemas/api/common.ts); the router's default is 100.
    routerOptions: { maxParamLength: 256 },
    // Malformed URLs and the like: answered in the envelope like every other failure.
    frameworkErrors: answerError,
    // What Node's HTTP parser refuses before there is a request (oversize headers, a broken
    // request line, a timeout): the envelope too, written on the socket.
    clientErrorHandler: (error, socket) => answerClientError(error, socket, newRequestId(), deps.log),
  });

  // JSON is the only body type besides multipart uploads; an empty body is "no body".
  // secure-json-parse refuses a member naming a prototype (`__proto__`, `constructor` holding
  // `prototype`) anywhere, so no handler ever sees one; valid JSON refused so is answered a 422
  // naming each such member, other text 400 `invalid_json` (gateway/json-body.ts).
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    if (body === '') return done(null, undefined);
    parseJson(request, body as string, (error, value) => {
      if (error) return done(refusedJsonBody(body as string, error.message), undefined);
      done(null, value);
    });
  });

  // Every answer carries its request id and gets its access line. The operations write both
  // themselves (gateway/routes.ts) and so do the error and not-found handlers: an onSend hook
  // on every request costs a small one (a 422) measurably. The few other routes have the hook.
  app.setErrorHandler(answerError);
  app.setNotFoundHandler((request, reply) => answerError(noRoute(request), request, reply));

  const handlers: Handlers = {
    ...operationHandlers({ config, version: deps.version }, deps.pipeline ?? null),
    ...deps.handlers,
  };
  const auth = {
    keys: deps.keys,
    limiter: new RateLimiter(deps.state, config.rateLimitPerMinute, config.rateLimitBurst),
    invalidKeys: new InvalidKeyLimiter(deps.state, config.invalidKeysPerMinute, config.invalidKeysBurst),
  };
  registerOperations(app, {
    ...auth,
    credits: new Credits(deps.keys),
    handlers,
    uploadLimitBytes: config.uploadLimitBytes,
    bodyMaxDepth: config.bodyMaxDepth,
    accessLog,
    log: deps.log,
  });

  // Firecrawl's v2 and v1 APIs under /firecrawl, translated onto the operations above.
  registerFirecrawl(app, { auth, state: deps.state, records: deps.pipeline?.records ?? null, uploadLimitBytes: config.uploadLimitBytes, log: deps.log, accessLog, operatorModel: config.modelProvider !== null, now });

  const openapi = buildOpenApi();
  void app.register(async (reference) => {
    reference.addHook('onSend', (request, reply, payload, done) => {
      reply.header('x-request-id', request.id);
      accessLog.write(request, reply);
      done(null, payload);
    });
    // The hook writes the line of an error answer here too.
    reference.setErrorHandler((error, request, reply) => sendError(error, request, reply, deps.log));
    reference.get('/v1/openapi.json', async () => openapi);
    reference.get('/healthz', async () => ({ status: 'ok' }));
    registerDocs(reference);
    // The dashboard for people (docs/dashboard.md), its API behind the operations' key hook.
    registerDashboard(reference, { authorize: keyHook(auth), records: deps.pipeline?.records ?? null, now });
  });

  // MCP for AI agents: the tools of the operations this gateway serves, each call made to its route in-process.
  registerMcp(app, {
    authorize: keyHook(auth),
    tools: servedTools((id) => id in handlers),
    version: deps.version,
    maxDepth: config.bodyMaxDepth,
    bodyLimit: Math.max(config.bodyLimitBytes, Math.ceil((config.uploadLimitBytes * 4) / 3) + 64 * 1024),
    log: deps.log,
    answerError,
    failureOf: clientFailure,
    accessLine: (request, reply) => accessLog.write(request, reply),
  });
  return app;
}
