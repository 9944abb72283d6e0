/**
 * Child process for bench/crawl.ts's baseline: what a plain Crawlee script does to crawl a
 * site into markdown, in its own process. CheerioCrawler (got-scraping, htmlparser2 +
 * cheerio) with `maxConcurrency` and `maxRequestsPerCrawl` as asked, following every
 * same-hostname link (`enqueueLinks()`), each page's scripts and styles dropped and its body
 * turned into markdown with turndown + turndown-plugin-gfm, pushed with its URL and title
 * to the default Dataset. Storage stays in memory (`persistStorage: false`; the storage
 * directory is a temporary one, removed on exit), Crawlee's logs are off.
 *
 * `minConcurrency` is `concurrency` too when BENCH_CRAWLEE_MIN_CONCURRENCY is unset: Crawlee's
 * autoscaled pool otherwise starts at one request and adds 5% every 10 s, which on a crawl of
 * minutes never reaches the asked concurrency; this way both sides have as many in flight.
 *
 * Asked `{type: 'crawl', url, limit, concurrency}`, it answers `{pages, failed, elapsedMs,
 * markdownChars}`; asked `{type: 'map', url}` (a sitemap URL) it lists the sitemap's URLs
 * with Crawlee's `Sitemap.load` (indexes followed) and answers `{urls, elapsedMs}`. It also
 * answers `cpu` and `memory` asks. Reports `{ready: true}` once loaded.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CheerioCrawler, Configuration, log, LogLevel } from '@crawlee/cheerio';
import { Sitemap } from '@crawlee/utils';
import TurndownService from 'turndown';
import { gfm } from 'turndown-plugin-gfm';
import { answerUsage } from './child.js';

const storageDir = mkdtempSync(join(tmpdir(), 'wds-bench-crawlee-'));
process.env.CRAWLEE_STORAGE_DIR = storageDir;
log.setLevel(LogLevel.OFF);

const turndown = new TurndownService();
turndown.use(gfm);

interface CrawlMessage {
  type: 'crawl';
  url: string;
  limit: number;
  concurrency: number;
}

async function crawl({ url, limit, concurrency }: CrawlMessage) {
  const config = new Configuration({ persistStorage: false, purgeOnStart: true, storageClientOptions: { localDataDirectory: storageDir } });
  const minConcurrency = Number(process.env.BENCH_CRAWLEE_MIN_CONCURRENCY) || concurrency;
  let markdownChars = 0;
  const crawler = new CheerioCrawler(
    {
      maxConcurrency: concurrency,
      minConcurrency: Math.min(minConcurrency, concurrency),
      maxRequestsPerCrawl: limit,
      async requestHandler({ request, $, enqueueLinks, pushData }) {
        $('script, style, noscript').remove();
        const markdown = turndown.turndown($('body').html() ?? '');
        markdownChars += markdown.length;
        await pushData({ url: request.loadedUrl ?? request.url, title: $('title').first().text().trim(), markdown });
        await enqueueLinks();
      },
    },
    config,
  );
  const start = performance.now();
  const stats = await crawler.run([url]);
  return { pages: stats.requestsFinished, failed: stats.requestsFailed, elapsedMs: performance.now() - start, markdownChars };
}

async function map(url: string) {
  const start = performance.now();
  const { urls } = await Sitemap.load(url);
  return { urls: urls.length, elapsedMs: performance.now() - start };
}

process.on('message', (message: CrawlMessage | { type: 'map'; url: string }) => {
  const work = message.type === 'crawl' ? crawl(message) : message.type === 'map' ? map(message.url) : null;
  work?.then(
    (result) => process.send?.(result),
    (error: unknown) => process.send?.({ error: error instanceof Error ? error.message : String(error) }),
  );
});
process.once('SIGTERM', () => {
  rmSync(storageDir, { recursive: true, force: true });
  process.exit(0);
});
answerUsage();
process.send?.({ ready: true });
