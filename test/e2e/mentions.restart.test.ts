/**
 * A mention watch across a restart of the embedded process (`main.ts`, everything in one
 * process, memory state): the process is SIGKILLed while a collection waits on a slow feed,
 * then started again on the same DATA_DIR. The schedule comes back from the store (the next
 * collection is still one interval after the first was due), and the interrupted collection
 * is resumed, not lost and not stored twice: it completes once, its mentions stored once.
 */
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type Server } from '../helpers/process.js';
import { until } from '../helpers/wait.js';
import { apiCaller, type Body } from '../helpers/api.js';

const API_KEY = 'e2e-mentions-restart-key-0123456789';
const WAIT = { timeoutMs: 60_000, intervalMs: 100 };

describe('e2e/mentions: a restart in the middle of a collection', () => {
  let dataDir: string;
  let server: Server | null = null;
  let feed: http.Server;
  let feedUrl: string;
  let delayMs = 6000;
  let hits = 0;

  const env = () => ({ DATA_DIR: dataDir, API_KEY, FETCH_ALLOW_PRIVATE: 'true' });

  const api = apiCaller(() => server?.url ?? '', API_KEY);
  const call = async (method: string, path: string, body?: unknown) => (await api(method, path, body)).body;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'wds-mentions-restart-'));
    feed = http.createServer((_req, res) => {
      hits++;
      const date = new Date(Date.now() - 3_600_000).toUTCString();
      const body = `<?xml version="1.0"?><rss version="2.0"><channel><title>Blog</title>
        <item><guid>urn:r:1</guid><title>Quillbase 4 is out</title><link>https://blog.example/q4</link><description>Quillbase ships offline sync.</description><pubDate>${date}</pubDate></item>
        <item><guid>urn:r:2</guid><title>Quillbase keeps crashing on import</title><link>https://blog.example/q5</link><description>Quillbase crashes when importing notes.</description><pubDate>${date}</pubDate></item>
        </channel></rss>`;
      setTimeout(() => res.writeHead(200, { 'content-type': 'application/rss+xml' }).end(body), delayMs);
    });
    feed.listen(0, '127.0.0.1');
    await once(feed, 'listening');
    feedUrl = `http://127.0.0.1:${(feed.address() as AddressInfo).port}/feed.xml`;
  });

  afterAll(async () => {
    await server?.stop();
    feed.closeAllConnections();
    await new Promise((resolve) => feed.close(resolve));
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('resumes the interrupted collection once, and keeps the schedule', async () => {
    server = await startServer(env(), 60_000);
    const watch = (await call('POST', '/v1/mentions/watches', { name: 'Quillbase', keywords: ['Quillbase'], platforms: ['feeds'], feeds: [feedUrl], intervalMinutes: 30 })).data;
    const nextCollectionAt = watch.nextCollectionAt as string;

    // Kill it while the collection waits on the feed.
    await until('the collection reading the feed', async () => hits >= 1 && (await call('GET', `/v1/mentions/watches/${watch.id}`)).data.currentCollectionId !== null, WAIT);
    const running = (await call('GET', `/v1/mentions/watches/${watch.id}`)).data.currentCollectionId as string;
    server.child.kill('SIGKILL');
    await server.exited;
    server = null;

    delayMs = 0;
    server = await startServer(env(), 60_000);
    const after = await until('the collection resumed and completed', async () => {
      const w = (await call('GET', `/v1/mentions/watches/${watch.id}`)).data;
      return w.lastCollection?.status === 'completed' ? w : null;
    }, WAIT);
    expect(after.lastCollection).toMatchObject({ id: running, found: 2 });
    expect(after.currentCollectionId).toBeNull();
    const mentions = (await call('GET', `/v1/mentions?watch_id=${watch.id}`)).data.mentions as Body[];
    expect(mentions.map((m) => m.title).sort()).toEqual(['Quillbase 4 is out', 'Quillbase keeps crashing on import']);
    // The schedule came back from the store: the next collection is one interval after the first was due.
    expect(Date.parse(after.nextCollectionAt)).toBe(Date.parse(nextCollectionAt) + 30 * 60_000);
  }, 180_000);
});
