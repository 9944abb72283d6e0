/**
 * Child process for the baselines: bare Fastify (same framework, same Node, started the same
 * way) answering constant JSON on the same routes. BENCH_BARE_RESPONSES holds
 * `{templates, crawl422}`: the gateway's own response bodies, so sizes match; they are sent
 * as objects, serialized per request as the gateway's are.
 */
import Fastify from 'fastify';
import { serveChild } from './child.js';

const responses = JSON.parse(process.env.BENCH_BARE_RESPONSES ?? '{}') as { templates?: unknown; crawl422?: unknown };
const app = Fastify({ logger: false });
app.get('/v1/templates', async () => responses.templates);
app.post('/v1/crawl', async (_request, reply) => reply.code(422).send(responses.crawl422));
await app.listen({ port: 0, host: '127.0.0.1' });
serveChild(app, {});
