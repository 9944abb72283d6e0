/**
 * The site readers of issue 30 (pipeline/intel/site/), two scenarios:
 *
 *   quality   readCompany (contacts on) over company sites whose truth the fixtures know: the
 *             seven hand-written sites of test/helpers/fake-sites/company.ts and
 *             BENCH_COMPANY_SITES (default 120) generated ones (company-generated.ts: six
 *             languages, four layouts, ten ways of writing or hiding an address, noise of fax
 *             numbers, dates, register numbers, IBANs, prices, placeholders, share buttons and
 *             agency credits; some addresses written by a script at run time, which no reader
 *             of the served page sees). Precision and recall of each field: emails, phones
 *             (one number written two ways is one), social profiles, the postal address
 *             (street, postal code and town all right), name, LinkedIn page, founding year.
 *             Target: precision ≥ 0.95 on emails and on phones.
 *   products  products listed per second from a BENCH_COMPANY_PRODUCTS-product (default
 *             10,000) Shopify-like store served by a child process (bench/servers/shop-site.ts):
 *             readProducts (detection, products.json paged 250 at a time, each product made
 *             the common shape with numeric prices) against a plain script paging the same
 *             products.json with fetch and JSON.parse until an empty page. BENCH_COMPANY_ROUNDS
 *             (default 5) alternating rounds, medians. Target: ≥ 0.9× the script.
 *
 * Both read over the runtime's own HTTP stack (test/helpers/fake-sites/read.ts: the guard with
 * private addresses allowed, redirects, charsets), as the tests do. One JSON line per scenario.
 *
 *   npx tsx bench/company.ts [quality|products]   (alone, or one scenario; `npm run bench` runs it with the others)
 */
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { readCompany, type CompanyAnswer } from '../pipeline/intel/site/company.js';
import { phoneKey, sameNumber } from '../pipeline/intel/site/phones.js';
import { readProducts } from '../pipeline/intel/site/products.js';
import { companyFixtures, type CompanyFixture } from '../test/helpers/fake-sites/company.js';
import { generatedCompanies } from '../test/helpers/fake-sites/company-generated.js';
import { localFetcher, readOver } from '../test/helpers/fake-sites/read.js';
import { startFakeSite } from '../test/helpers/fake-sites/server.js';
import { emit, median, positiveInteger, startServer } from './lib.js';

const SITES = positiveInteger('BENCH_COMPANY_SITES', 120);
const PRODUCTS = positiveInteger('BENCH_COMPANY_PRODUCTS', 10_000);
const ROUNDS = positiveInteger('BENCH_COMPANY_ROUNDS', 5);
const TARGET_PRECISION = 0.95;
const TARGET_RATIO = 0.9;

interface Tally {
  tp: number;
  fp: number;
  fn: number;
}

const tally = (): Tally => ({ tp: 0, fp: 0, fn: 0 });
const ratio = (a: number, b: number) => (b === 0 ? 1 : Number((a / b).toFixed(4)));
const scores = (t: Tally) => ({ precision: ratio(t.tp, t.tp + t.fp), recall: ratio(t.tp, t.tp + t.fn), ...t });

/** Counts a found list against the truth, `same` telling two items one. */
function count<T>(t: Tally, found: readonly T[], truth: readonly T[], same: (a: T, b: T) => boolean = (a, b) => a === b): void {
  const left = [...truth];
  for (const item of found) {
    const at = left.findIndex((x) => same(item, x));
    if (at >= 0) {
      t.tp += 1;
      left.splice(at, 1);
    } else t.fp += 1;
  }
  t.fn += left.length;
}

/** Counts one answered value (null: none) against the truth's (null: none stated). */
function scalar<T>(t: Tally, found: T | null, truth: T | null, same: (a: T, b: T) => boolean = (a, b) => a === b): void {
  count(t, found === null ? [] : [found], truth === null ? [] : [truth], same);
}

async function quality(): Promise<void> {
  const fixtures: CompanyFixture[] = [...companyFixtures(), ...generatedCompanies(SITES)];
  const http = localFetcher();
  const read = readOver(http);
  const fields = { emails: tally(), phones: tally(), socials: tally(), address: tally(), name: tally(), linkedin: tally(), foundingYear: tally() };
  const started = performance.now();
  let pages = 0;
  for (const fixture of fixtures) {
    const site = await startFakeSite(fixture.routes);
    let answer: CompanyAnswer;
    try {
      answer = await readCompany(site.origin, { contacts: true, read });
    } finally {
      await site.close();
    }
    pages += answer.pagesRead;
    const t = fixture.truth;
    count(fields.emails, answer.contacts?.emails.map((e) => e.email) ?? [], t.emails);
    count(fields.phones, answer.contacts?.phones.map((p) => phoneKey(p.phone)) ?? [], t.phones, sameNumber);
    count(fields.socials, answer.contacts?.socialLinks.map((s) => s.url) ?? [], t.socials);
    const address = answer.address && { street: answer.address.street ?? '', postalCode: answer.address.postalCode ?? '', locality: answer.address.locality ?? '' };
    scalar(fields.address, address, t.address, (a, b) => a.street === b.street && a.postalCode === b.postalCode && a.locality === b.locality);
    scalar(fields.name, answer.name, t.name);
    scalar(fields.linkedin, answer.linkedin, t.linkedin);
    scalar(fields.foundingYear, answer.foundingYear, t.foundingYear);
  }
  http.close();
  const byField = Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, scores(v)]));
  const emailP = scores(fields.emails).precision;
  const phoneP = scores(fields.phones).precision;
  emit({
    bench: 'company',
    scenario: 'quality',
    sites: fixtures.length,
    pages_read: pages,
    ms_per_site: Number(((performance.now() - started) / fixtures.length).toFixed(1)),
    ...byField,
    target_precision: TARGET_PRECISION,
    meets_target: emailP >= TARGET_PRECISION && phoneP >= TARGET_PRECISION,
  });
}

/** The plain script: products.json paged with fetch until an empty page. */
async function script(origin: string): Promise<number> {
  let listed = 0;
  for (let page = 1; ; page += 1) {
    const res = await fetch(`${origin}/products.json?limit=250&page=${page}`);
    const body = (await res.json()) as { products: unknown[] };
    if (!body.products.length) return listed;
    listed += body.products.length;
  }
}

async function products(): Promise<void> {
  const store = await startServer(fileURLToPath(new URL('./servers/shop-site.ts', import.meta.url)), { BENCH_COMPANY_PRODUCTS: String(PRODUCTS) });
  const http = localFetcher();
  const read = readOver(http, { timeoutMs: 60_000 });
  const ours: number[] = [];
  const base: number[] = [];
  const oursCpu: number[] = [];
  const baseCpu: number[] = [];
  try {
    // One warm-up of each: the JIT and the connections.
    await readProducts(store.url, { limit: PRODUCTS, read });
    await script(store.url);
    for (let round = 0; round < ROUNDS; round += 1) {
      for (const side of round % 2 ? (['script', 'ours'] as const) : (['ours', 'script'] as const)) {
        const cpu = process.cpuUsage();
        const t0 = performance.now();
        const listed = side === 'ours' ? (await readProducts(store.url, { limit: PRODUCTS, read })).products.length : await script(store.url);
        const seconds = (performance.now() - t0) / 1000;
        const used = process.cpuUsage(cpu);
        if (listed !== PRODUCTS) throw new Error(`${side} listed ${listed} of ${PRODUCTS} products`);
        (side === 'ours' ? ours : base).push(listed / seconds);
        (side === 'ours' ? oursCpu : baseCpu).push((used.user + used.system) / 1000);
      }
    }
  } finally {
    http.close();
    await store.stop();
  }
  const r = median(ours) / median(base);
  emit({
    bench: 'company',
    scenario: 'products',
    products: PRODUCTS,
    rounds: ROUNDS,
    products_per_s: Math.round(median(ours)),
    baseline_products_per_s: Math.round(median(base)),
    ratio: Number(r.toFixed(3)),
    cpu_ms: Math.round(median(oursCpu)),
    baseline_cpu_ms: Math.round(median(baseCpu)),
    load_avg_1m: Number((loadavg()[0] ?? 0).toFixed(2)),
    target_ratio: TARGET_RATIO,
    meets_target: r >= TARGET_RATIO,
  });
}

const only = process.argv.slice(2);
if (!only.length || only.includes('quality')) await quality();
if (!only.length || only.includes('products')) await products();
