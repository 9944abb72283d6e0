/**
 * Child process for bench/scrape.ts's baseline: what a plain script does to turn web pages
 * into markdown, in its own process — Node's `fetch` (undici), `res.text()`, cheerio to drop
 * scripts and styles and read the title, turndown with turndown-plugin-gfm on the body.
 *
 * Asked `{type: 'run', urls, concurrency}`, it scrapes every URL with that many in flight
 * (bench/servers/drive.ts, as the service is driven) and answers the DriveResult; it also
 * answers `cpu` and `memory` asks. Reports `{ready: true}` once loaded.
 */
import { load } from 'cheerio';
import TurndownService from 'turndown';
import { gfm } from 'turndown-plugin-gfm';
import { answerUsage } from './child.js';
import { drive } from './drive.js';

const turndown = new TurndownService();
turndown.use(gfm);

async function scrape(url: string): Promise<void> {
  const res = await fetch(url);
  if (res.status !== 200) throw new Error(`${url}: status ${res.status}`);
  const $ = load(await res.text());
  $('script, style, noscript').remove();
  const page = { title: $('title').first().text().trim(), markdown: turndown.turndown($('body').html() ?? '') };
  if (!page.markdown && !page.title) throw new Error(`${url}: nothing read`);
}

interface RunMessage {
  type?: string;
  urls?: string[];
  concurrency?: number;
}

process.on('message', (message: RunMessage) => {
  if (message.type !== 'run') return;
  void drive(message.urls ?? [], message.concurrency ?? 1, scrape).then((result) => process.send?.({ ...result }));
});
process.once('SIGTERM', () => process.exit(0));
answerUsage();
process.send?.({ ready: true });
