/**
 * The HTTP gateway: Fastify on Node's HTTP server. It routes the 46 operations, serves the
 * OpenAPI document and the reference page, and answers every failure through one error
 * handler. It never fetches a page itself.
 */
import { randomUUID } from 'node:crypto';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { Config } from '../pipeline/config.js';
import type { Logger } from '../pipeline/log.js';
import type { KeyRegistry } from '../pipeline/keys/registry.js';
import type { State } from '../pipeline/state/state.js';
import { AppError } from '../pipeline/errors.js';
import { Credits } from './credits.js';
import { AccessLog } from './access-log.js';
import { requestLog } from './request-log.js';
import { registerDocs } from './docs.js';
import type { Handlers } from './handler.js';
import { sourceHandler, templatesHandler } from './handlers/reference.js';
import { buildOpenApi } from './openapi.js';
import { RateLimiter } from './rate-limit.js';
import { errorBody, sendError } from './replies.js';
import { registerOperations } from './routes.js';

export interface GatewayDeps {
  config: Config;
  log: Logger;
  keys: KeyRegistry;
  /** Coordination state shared by gateway processes (rate limits). */
  state: State;
  version: string;
  /** Handlers for operations served by other parts of the service (actors, jobs). */
  handlers?: Handlers;
}

const REQUEST_ID = /^[\w.:-]{1,128}$/;

export async function buildGateway(deps: GatewayDeps): Promise<FastifyInstance> {
  const { config } = deps;
  const app = Fastify({
    loggerInstance: deps.log as FastifyBaseLogger,
    bodyLimit: config.bodyLimitBytes,
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
    },
    return503OnClosing: true,
    // Ids may be up to 128 characters (schemas/api/common.ts); the router's default is 100.
    routerOptions: { maxParamLength: 256 },
    logController: new AccessLog(),
    // request.log is bound to the request id, but the pino child is made only when a line
    // other than the access line is written (gateway/request-log.ts).
    childLoggerFactory: requestLog,
    // Malformed URLs and the like: answered in the envelope like every other failure.
    frameworkErrors: (error, request, reply) => sendError(error, request, reply),
  });

  // JSON is the only body type besides multipart uploads; an empty body is "no body".
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    if (body === '') return done(null, undefined);
    parseJson(request, body as string, (error, value) => {
      if (error) return done(new AppError('invalid_json', `the body is not valid JSON: ${error.message}`), undefined);
      done(null, value);
    });
  });

  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    done();
  });
  app.setErrorHandler((error, request, reply) => sendError(error, request, reply));
  app.setNotFoundHandler((request, reply) =>
    reply.code(404).send(errorBody('not_found', `no route ${request.method} ${request.url.split('?')[0]}`, request.id)),
  );

  const handlers: Handlers = {
    templates: templatesHandler(),
    source: sourceHandler({ sourceUrl: config.sourceUrl, version: deps.version }),
    ...deps.handlers,
  };
  registerOperations(app, {
    keys: deps.keys,
    credits: new Credits(deps.keys),
    limiter: new RateLimiter(deps.state, config.rateLimitPerMinute, config.rateLimitBurst),
    handlers,
    uploadLimitBytes: config.uploadLimitBytes,
  });

  const openapi = buildOpenApi();
  app.get('/v1/openapi.json', async () => openapi);
  app.get('/healthz', async () => ({ status: 'ok' }));
  registerDocs(app);
  return app;
}
