/**
 * The dashboard (docs/dashboard.md): GET /dashboard, a page for people, and its JSON under
 * /dashboard/api/, read for the key the page signs in with.
 *
 * - `/dashboard` and `/dashboard/static/<file>`: the page and its files (`static/`: plain
 *   HTML, CSS and JavaScript modules, no framework; the build copies them next to this
 *   module, infra/build/copy-assets.ts). Read once at start; no download ever.
 * - `/dashboard/api/usage`, `/jobs`, `/jobs/<id>`, `/monitors`, `/mentions`: each panel's data
 *   (pipeline/dashboard/panels.ts), authenticated exactly as an operation is (the key hook
 *   gateway/app.ts hands over: 401, then the rate limit's 429), answered in the success
 *   envelope and never cached. Every read is the key's own records, read-only.
 *
 * The page keeps the key in the tab's session storage only (never local storage or a cookie)
 * and sends it as `Authorization: Bearer`. Its policy lets it load only its own files.
 */
import { readFileSync } from 'node:fs';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../pipeline/runtime/errors.js';
import type { KeyRecord } from '../../pipeline/keys/registry.js';
import type { State } from '../../pipeline/runtime/state/state.js';
import type { Store } from '../../pipeline/runtime/store/store.js';
import { jobDetail, jobsPanel, mentionsPanel, monitorsPanel, usagePanel, type PanelDeps } from '../../pipeline/dashboard/panels.js';

export interface DashboardDeps {
  /** The operations' key hook: sets `request.apiKey` or fails with 401/429. */
  readonly authorize: (request: FastifyRequest, reply: FastifyReply, done: (error?: Error) => void) => void;
  /** Where the records are; null in a gateway without a pipeline (the API answers 501). */
  readonly records: { readonly store: Pick<Store, 'query'>; readonly state: State } | null;
  /** The service's clock (ms), "now" of every window. */
  readonly now: () => number;
}

const FILES: Record<string, string> = {
  'app.js': 'text/javascript; charset=utf-8',
  'charts.js': 'text/javascript; charset=utf-8',
  'panels.js': 'text/javascript; charset=utf-8',
  'style.css': 'text/css; charset=utf-8',
};

const PAGE_HEADERS = {
  'content-security-policy': "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store',
};

const JOB_ID = /^[\w-]{1,128}$/;

function readStatic(name: string): Buffer {
  return readFileSync(new URL(`./static/${name}`, import.meta.url));
}

export function registerDashboard(app: FastifyInstance, deps: DashboardDeps): void {
  const page = readStatic('index.html');
  const files = new Map(Object.entries(FILES).map(([name, type]) => [name, { body: readStatic(name), type }]));
  const sendPage = (_req: FastifyRequest, reply: FastifyReply) => reply.headers(PAGE_HEADERS).type('text/html; charset=utf-8').send(page);
  app.get('/dashboard', sendPage);
  app.get('/dashboard/', sendPage);
  app.get('/dashboard/static/:name', async (req, reply) => {
    const file = files.get((req.params as { name: string }).name);
    if (!file) throw new AppError('not_found', `no dashboard file ${req.url.split('?')[0]}`);
    return reply.headers({ 'x-content-type-options': 'nosniff', 'cache-control': 'no-cache' }).type(file.type).send(file.body);
  });

  const panel = (read: (records: PanelDeps, key: KeyRecord, req: FastifyRequest) => Promise<Record<string, unknown>>) => ({
    onRequest: deps.authorize,
    handler: async (req: FastifyRequest, reply: FastifyReply) => {
      if (!deps.records) throw new AppError('not_implemented', 'the dashboard needs the service\'s store; this gateway runs without one');
      const data = await read(deps.records, req.apiKey as KeyRecord, req);
      return reply.header('cache-control', 'no-store').send({ success: true, data });
    },
  });
  app.get('/dashboard/api/usage', panel((r, key) => usagePanel(r, key.id, deps.now())));
  app.get('/dashboard/api/jobs', panel((r, key) => jobsPanel(r, key.id)));
  app.get(
    '/dashboard/api/jobs/:id',
    panel((r, key, req) => {
      const id = (req.params as { id: string }).id;
      if (!JOB_ID.test(id)) throw new AppError('not_found', 'no such job for this key');
      return jobDetail(r, key.id, id);
    }),
  );
  app.get('/dashboard/api/monitors', panel((r, key) => monitorsPanel(r, key.id, deps.now())));
  app.get('/dashboard/api/mentions', panel((r, key) => mentionsPanel(r, key.id, deps.now())));
}
