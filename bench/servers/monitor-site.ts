/**
 * Child process for bench/monitors.ts: a generated shop of MONITOR_SITE_PAGES product pages
 * (default 2,000) on 127.0.0.1 that changes between the bench's rounds and knows what it changed.
 *
 * `/p/<i>` is product i: a title, a "Last updated" line (one of four ways sites write it: ISO
 * date and time, weekday with day and month name, US month-day with am/pm, "n hours ago"), a
 * photo and a spec-sheet link with cache-busting queries (`?v=<epoch s>`, `?_=<epoch ms>`), the
 * price, the stock, three paragraphs, two links to other products; header and footer around
 * the main content, a stylesheet and a script with version queries in the head (~2.5 KB).
 *
 * `{type: 'change', round, changedPct, noisePct, removedPct}` changes pages drawn at random
 * (seeded by the round) from those still there, disjoint, and answers `{kinds}`: for each page
 * what happened to it this round:
 *   changed    a real edit: the price, the stock, a sentence rewritten or a paragraph added
 *              (with a new "Last updated" and asset versions, as a site's editor writes them)
 *   noise      nothing a reader would call a change, but the bytes differ: any non-empty mix
 *              of a new "Last updated", new cache-busting values, other whitespace in the markup
 *   removed    answers 404 from now on
 *   gone       removed in an earlier round, still 404
 *   unchanged  the same bytes as last round
 * Reports `{port, pages}` over IPC, answers `cpu` and `memory`, and stops on SIGTERM.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { seededRandom } from '../seeded-random.js';
import { answerUsage } from './child.js';

const PAGES = Number(process.env.MONITOR_SITE_PAGES ?? 2_000);
const HOUR = 3_600_000;
/** 2026-11-26T23:15:10Z: every page's first "Last updated". */
const EPOCH_MS = 1_795_734_910_000;

export type PageKind = 'unchanged' | 'changed' | 'noise' | 'removed' | 'gone';

const NOUNS = ['Tent', 'Backpack', 'Jacket', 'Stove', 'Lantern', 'Sleeping Bag', 'Trekking Pole', 'Water Filter', 'Headlamp', 'Hammock', 'Cooler', 'Kayak Paddle'];
const ADJECTIVES = ['Summit', 'Trail', 'Alpine', 'Ridge', 'Canyon', 'Harbor', 'Forest', 'Glacier', 'Prairie', 'Coastal', 'Desert', 'Timber'];
const SENTENCES = [
  'Built from recycled ripstop nylon with taped seams that keep the rain out.',
  'Weighs less than a litre of water and packs down to the size of a loaf of bread.',
  'The frame uses aluminium poles that snap together in under a minute.',
  'Every zip is rated for ten thousand cycles and backed by our repair programme.',
  'Tested on three continents by our field team through a full winter season.',
  'Fits in the side pocket of most daypacks and clips onto a harness loop.',
  'The reflective trim makes it easy to find after dark at a crowded campsite.',
  'Its shell resists abrasion from granite, thorns and the floor of a car boot.',
  'Customers tell us it outlasted two cheaper models bought the same year.',
  'Ships in a cardboard box without plastic filler, printed with plant-based ink.',
  'A lifetime warranty covers the seams, the buckles and the stitching.',
  'Spare parts are sold separately and fit every model since the first edition.',
  'The colour is dyed in the yarn, so it fades far less than printed fabric.',
  'Our workshop in Leeds repairs it for the cost of the parts, whatever its age.',
  'Rated to minus ten degrees when paired with an insulated mat.',
  'The handle folds flat and locks with a single steel pin.',
];
const UPDATES = [
  'Now available in forest green and slate grey.',
  'This model won the readers award of an outdoor magazine this autumn.',
  'A lighter version with carbon poles joins the range next spring.',
  'Orders placed before noon leave our warehouse the same day.',
];
const WEEKDAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

interface Product {
  readonly i: number;
  readonly title: string;
  priceCents: number;
  stock: number;
  paragraphs: string[][];
  updatedMs: number;
  hoursAgo: number;
  /** The epoch seconds in the asset URLs' cache-busting queries. */
  assetVersion: number;
  spacing: number;
  gone: boolean;
}

const pick = <T>(items: readonly T[], next: () => number): T => items[Math.floor(next() * items.length)] as T;
const pad = (n: number) => String(n).padStart(2, '0');

function newProduct(i: number): Product {
  const next = seededRandom(i + 1);
  return {
    i,
    title: `${ADJECTIVES[i % ADJECTIVES.length]} ${NOUNS[Math.floor(i / ADJECTIVES.length) % NOUNS.length]} ${1 + Math.floor(i / 144)}`,
    priceCents: 1_999 + Math.floor(next() * 400) * 100,
    stock: 3 + Math.floor(next() * 40),
    paragraphs: Array.from({ length: 3 }, () => Array.from({ length: 3 }, () => pick(SENTENCES, next))),
    updatedMs: EPOCH_MS - Math.floor(next() * 200) * HOUR,
    hoursAgo: 1 + Math.floor(next() * 23),
    assetVersion: Math.floor(EPOCH_MS / 1000) - Math.floor(next() * 1_000_000),
    spacing: 0,
    gone: false,
  };
}

/** When the page was last updated, written one of four ways by product. */
function stamp(p: Product): string {
  const d = new Date(p.updatedMs);
  const [y, mo, day, h, mi, s] = [d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate(), d.getUTCHours(), d.getUTCMinutes(), d.getUTCSeconds()];
  switch (p.i % 4) {
    case 0:
      return `${y}-${pad(mo + 1)}-${pad(day)} ${pad(h)}:${pad(mi)}:${pad(s)} UTC`;
    case 1:
      return `${WEEKDAYS[d.getUTCDay()]}, ${day} ${MONTHS[mo]} ${y} at ${pad(h)}:${pad(mi)}`;
    case 2:
      return `${MONTHS[mo]?.slice(0, 3)} ${day}, ${y}, ${h % 12 || 12}:${pad(mi)} ${h < 12 ? 'AM' : 'PM'}`;
    default:
      return `${p.hoursAgo} hours ago`;
  }
}

const price = (cents: number) => `$${Math.floor(cents / 100)}.${pad(cents % 100)}`;

function productPage(p: Product, products: readonly Product[]): string {
  const gap = `\n${' '.repeat(p.spacing * 2)}`;
  const version = p.assetVersion;
  const other = (k: number) => products[(p.i * 7 + k * 131) % products.length] as Product;
  const link = (o: Product) => `<a href="/p/${o.i}">${o.title}</a>`;
  const body = [
    `<h1>${p.title}</h1>`,
    `<p>Last updated ${stamp(p)}</p>`,
    `<img src="/img/${p.i}.jpg?v=${version}" alt="${p.title} photo" width="640" height="480">`,
    `<p class="price">Price: <strong>${price(p.priceCents)}</strong> · ${p.stock} left in stock (counted ${stamp(p)})</p>`,
    ...p.paragraphs.map((sentences) => `<p>${sentences.join(p.spacing % 2 ? '  ' : ' ')}</p>`),
    `<p>Download the <a href="/files/spec-${p.i}.pdf?_=${version}000">spec sheet</a>. Often bought with ${link(other(1))} and ${link(other(2))}.</p>`,
  ];
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${p.title} – Bench Outdoor Shop</title>
<link rel="stylesheet" href="/static/shop.css?ver=${version}"><script src="/static/shop.js?v=${version}" defer></script></head>
<body><header><a href="/">Bench Outdoor Shop</a><nav><a href="/tents">Tents</a> <a href="/packs">Packs</a> <a href="/sale">Sale</a></nav></header>
<main><article>${gap}${body.join(gap)}
</article></main>
<footer><p>© 2026 Bench Outdoor Shop · <a href="/about">About</a> · <a href="/returns">Returns</a></p></footer>
</body></html>
`;
}

const NOT_FOUND = '<!doctype html><html><head><title>Not found</title></head><body><main><h1>Not found</h1><p>This product is no longer sold.</p></main></body></html>';

function realChange(p: Product, next: () => number): void {
  switch (Math.floor(next() * 4)) {
    case 0:
      p.priceCents += (1 + Math.floor(next() * 20)) * 100;
      break;
    case 1:
      p.stock += 1 + Math.floor(next() * 9);
      break;
    case 2: {
      const sentences = pick(p.paragraphs, next);
      const at = Math.floor(next() * sentences.length);
      sentences[at] = pick(SENTENCES.filter((s) => s !== sentences[at]), next);
      break;
    }
    default:
      p.paragraphs.push([pick(UPDATES, next)]);
  }
  newTimestamp(p, next);
  p.assetVersion += 1 + Math.floor(next() * 100_000);
}

function newTimestamp(p: Product, next: () => number): void {
  p.updatedMs += (1 + Math.floor(next() * 48)) * HOUR;
  p.hoursAgo = 1 + ((p.hoursAgo + Math.floor(next() * 22)) % 23);
}

/** A non-empty mix of a new "Last updated", new cache-busting values and other whitespace in the markup. */
function noiseChange(p: Product, next: () => number): void {
  const mix = 1 + Math.floor(next() * 7);
  if (mix & 1) newTimestamp(p, next);
  if (mix & 2) p.assetVersion += 1 + Math.floor(next() * 100_000);
  if (mix & 4) p.spacing = (p.spacing + 1) % 3;
}

const products = Array.from({ length: PAGES }, (_, i) => newProduct(i));
const pages = products.map((p) => productPage(p, products));

/** Changes the shares of pages the message asks for; what happened to each page. */
function changeRound(round: number, shares: { changedPct: number; noisePct: number; removedPct: number }): PageKind[] {
  const next = seededRandom(1_000 + round);
  const kinds: PageKind[] = products.map((p) => (p.gone ? 'gone' : 'unchanged'));
  const present = products.filter((p) => !p.gone);
  for (let k = present.length - 1; k > 0; k -= 1) {
    const j = Math.floor(next() * (k + 1));
    [present[k], present[j]] = [present[j] as Product, present[k] as Product];
  }
  const count = (pct: number) => Math.round((PAGES * pct) / 100);
  let at = 0;
  const take = (pct: number, kind: PageKind, change: (p: Product) => void) => {
    for (const p of present.slice(at, at + count(pct))) {
      change(p);
      kinds[p.i] = kind;
    }
    at += count(pct);
  };
  take(shares.changedPct, 'changed', (p) => realChange(p, next));
  take(shares.noisePct, 'noise', (p) => noiseChange(p, next));
  take(shares.removedPct, 'removed', (p) => (p.gone = true));
  products.forEach((p, i) => (pages[i] = productPage(p, products)));
  return kinds;
}

const server = http.createServer((req, res) => {
  const n = /^\/p\/(\d+)$/.exec((req.url ?? '').split('?')[0] ?? '')?.[1];
  const product = n === undefined ? undefined : products[Number(n)];
  if (!product || product.gone) {
    res.writeHead(404, { 'content-type': 'text/html; charset=utf-8' }).end(NOT_FOUND);
    return;
  }
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(pages[product.i]);
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => {
  process.on('message', (message: { type?: string; round?: number; changedPct?: number; noisePct?: number; removedPct?: number }) => {
    if (message.type !== 'change') return;
    const kinds = changeRound(Number(message.round), {
      changedPct: Number(message.changedPct),
      noisePct: Number(message.noisePct),
      removedPct: Number(message.removedPct),
    });
    process.send?.({ kinds });
  });
  process.once('SIGTERM', () => server.close(() => process.exit(0)));
  answerUsage();
  process.send?.({ port: (server.address() as AddressInfo).port, pages: PAGES });
});
