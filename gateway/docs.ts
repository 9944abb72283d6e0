/**
 * GET /docs: the API reference, rendered by Swagger UI from GET /v1/openapi.json. The UI's
 * files come from the swagger-ui-dist package and are served by the gateway itself, so the
 * page works with no network beyond the service.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { noRoute } from './replies.js';

const ASSETS: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'application/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
};

const PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>Web Data Service API reference</title>
  <link rel="icon" type="image/png" href="/docs/assets/favicon-32x32.png">
  <link rel="stylesheet" href="/docs/assets/swagger-ui.css">
  <style>body { margin: 0; } .topbar { display: none; }</style>
</head>
<body>
  <div id="reference"></div>
  <script src="/docs/assets/swagger-ui-bundle.js"></script>
  <script>
    window.ui = SwaggerUIBundle({
      url: '/v1/openapi.json',
      dom_id: '#reference',
      deepLinking: true,
      docExpansion: 'list',
      defaultModelsExpandDepth: 0,
      persistAuthorization: true,
    });
  </script>
</body>
</html>`;

export function registerDocs(app: FastifyInstance): void {
  const dir = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
  const files = new Map(Object.entries(ASSETS).map(([name, type]) => [name, { body: readFileSync(join(dir, name)), type }]));
  app.get('/docs', async (_req, reply) => reply.type('text/html; charset=utf-8').send(PAGE));
  app.get('/docs/assets/:name', async (req, reply) => {
    const file = files.get((req.params as { name: string }).name);
    if (!file) throw noRoute(req);
    return reply.type(file.type).header('cache-control', 'public, max-age=86400').send(file.body);
  });
}
