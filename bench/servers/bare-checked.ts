/**
 * Child process for bench/gateway.ts's `crawl-422-checked` baseline: bare Fastify doing the
 * checks a crawl 422 needs, and none of the gateway's other work. Per request:
 *
 * - the bearer key looked up among BENCH_BARE_KEYS (the gateways' keys, one string set);
 * - the body parsed by Fastify's own JSON parser, then the gateway's depth and text checks
 *   and the crawl operation's body schema, compiled once by gateway/validation.ts (the same
 *   Ajv settings and `detail` translation as the gateway's);
 * - the 422 `{detail}` sent as an object (Fastify serialises it once);
 * - one access line through the service's logger (pipeline/runtime/log.ts, LOG_LEVEL as the
 *   gateway's; standard output goes to /dev/null, as the gateway's).
 *
 * Not done here, and done by the gateway: the key's hash and its record (credits, scopes),
 * the request id, the envelope's error codes, the HTTP metrics, the rate limit's bookkeeping.
 * So the gap between the two is the gateway's own cost beyond the checks themselves.
 */
import Fastify from 'fastify';
import { compile, inputProblems, toDetails, type ValidationDetail } from '../../gateway/validation.js';
import { OPERATIONS } from '../../schemas/api/operations.js';
import { createLogger } from '../../pipeline/runtime/log.js';
import { serveChild } from './child.js';

/** The gateway's default body depth limit (BODY_MAX_DEPTH). */
const MAX_DEPTH = Number(process.env.BODY_MAX_DEPTH ?? 64);

const keys = new Set((process.env.BENCH_BARE_KEYS ?? '').split(',').filter(Boolean));
const crawl = OPERATIONS.find((op) => op.id === 'crawlStart');
if (!crawl || !('body' in crawl) || !crawl.body) throw new Error('the crawl operation has no body schema');
const validate = compile('body', crawl.body);
const log = createLogger(process.env.LOG_LEVEL || 'info');

const app = Fastify({ logger: false });
app.addHook('onResponse', (request, reply, done) => {
  log.info({ method: request.method, path: request.url, status: reply.statusCode, ms: Math.round(reply.elapsedTime * 10) / 10 }, 'request');
  done();
});
app.post('/v1/crawl', (request, reply) => {
  const header = request.headers.authorization ?? '';
  if (!header.startsWith('Bearer ') || !keys.has(header.slice(7))) {
    return reply.code(401).send({ success: false, error: { code: 'unauthorized', message: 'missing or unknown API key' } });
  }
  const details: ValidationDetail[] = [...inputProblems(request.body, 'body', MAX_DEPTH)];
  if (details.length === 0 && !validate(request.body)) details.push(...toDetails(validate.errors, 'body', request.body));
  if (details.length) return reply.code(422).send({ detail: details });
  return reply.code(202).send({ success: true });
});
await app.listen({ port: 0, host: '127.0.0.1' });
serveChild(app, {});
