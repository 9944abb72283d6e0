/**
 * The commands that call one operation, named once here with the operation of the contract
 * (schemas/api/operations.ts) each calls: its positional arguments (fields of the path, body or
 * query), how its answer is shown, and examples for its `--help`. Each command's other flags are
 * generated from the operation's schemas (cli/options.ts); its help line is the operation's
 * summary.
 *
 * `show` names how an answer is shown: `rows` is the array of the answer that holds its
 * records (one JSON line each when piped, one CSV row each with `-o`, `csv` naming the file);
 * `page` an answer that is one page (its markdown shown, and written with `-o`); `bytes` raw
 * bytes. `job` commands start a job and follow it (cli/jobs.ts).
 */
import type { OperationId } from '../schemas/api/operations.js';

export interface Show {
  readonly rows?: string;
  /** With `-o DIR`: the rows written as DIR/<csv>.csv (tabular results), with the answer's attribution notices beside them. */
  readonly csv?: string;
  readonly page?: boolean;
  readonly bytes?: boolean;
}

export interface CommandSpec {
  readonly name: string;
  readonly operation: OperationId;
  /** Positional arguments, each a field name; `name...` a variadic array, `[name]` optional. */
  readonly args?: readonly string[];
  readonly show?: Show;
  /** The job this command starts and follows (with a progress bar). */
  readonly job?: 'crawl' | 'batch' | 'leads';
  /** A multipart upload: the positional argument is a file path. */
  readonly upload?: boolean;
  readonly examples: readonly string[];
}

/** A group of commands under one name (`monitor create`, `monitor list`, …). */
export interface GroupSpec {
  readonly name: string;
  readonly summary: string;
  readonly commands: readonly CommandSpec[];
}

export const COMMANDS: readonly CommandSpec[] = [
  {
    name: 'scrape',
    operation: 'scrape',
    args: ['url'],
    show: { page: true },
    examples: ['scrape https://example.com', 'scrape https://example.com --formats markdown,links --json', 'scrape https://example.com -o pages/'],
  },
  {
    name: 'crawl',
    operation: 'crawlStart',
    args: ['url'],
    job: 'crawl',
    examples: ['crawl https://example.com --limit 50 -o site/', 'crawl https://example.com --max-depth 1 --json > pages.jsonl', 'crawl https://example.com --include-paths "^/blog/" --no-wait'],
  },
  { name: 'crawl-status', operation: 'crawlStatus', args: ['job_id'], job: 'crawl', examples: ['crawl-status JOB_ID --wait -o site/'] },
  { name: 'crawl-cancel', operation: 'crawlCancel', args: ['job_id'], examples: ['crawl-cancel JOB_ID'] },
  { name: 'crawl-errors', operation: 'crawlErrors', args: ['job_id'], show: { rows: 'errors' }, examples: ['crawl-errors JOB_ID --json'] },
  {
    name: 'batch',
    operation: 'batchStart',
    args: ['urls...'],
    job: 'batch',
    examples: ['batch https://example.com/a https://example.com/b -o pages/', 'batch https://example.com/a --scrape-options \'{"formats":["markdown","links"]}\' --json'],
  },
  { name: 'batch-status', operation: 'batchStatus', args: ['job_id'], job: 'batch', examples: ['batch-status JOB_ID --wait'] },
  { name: 'map', operation: 'map', args: ['url'], show: { rows: 'links' }, examples: ['map https://example.com --limit 100', 'map https://example.com --search blog --json'] },
  {
    name: 'extract',
    operation: 'extract',
    args: ['urls...'],
    show: { rows: 'results' },
    examples: ['extract https://example.com/product --template product', 'extract https://example.com --schema \'{"type":"object","properties":{"title":{"type":"string"}}}\''],
  },
  { name: 'parse', operation: 'parse', args: ['file'], upload: true, show: { page: true }, examples: ['parse report.pdf', 'parse notes.docx -o out/'] },
  { name: 'fetch', operation: 'fetch', args: ['url'], show: { bytes: true }, examples: ['fetch https://example.com/logo.png > logo.png'] },
  { name: 'search', operation: 'search', args: ['query'], show: { rows: 'results' }, examples: ['search "web scraping" --limit 5', 'search "zebra facts" --scrape-options \'{"formats":["markdown"]}\' --json'] },
  { name: 'serp', operation: 'serp', args: ['query'], show: { rows: 'organicResults' }, examples: ['serp "coffee grinder" --country us --num 20'] },
  {
    name: 'places',
    operation: 'placesSearch',
    args: ['query'],
    show: { rows: 'places', csv: 'places' },
    examples: ['places "cafes in Ghent"', 'places dentists --location "Lyon, France" -o out/'],
  },
  { name: 'domain', operation: 'domain', args: ['domain'], examples: ['domain example.com', 'domain example.com --no-backlinks --json'] },
  { name: 'domain-report', operation: 'domainReport', args: ['domain'], examples: ['domain-report example.com --depth buyer'] },
  { name: 'domain-snapshots', operation: 'domainSnapshots', args: ['domain'], show: { rows: 'snapshots' }, examples: ['domain-snapshots example.com --years 5'] },
  { name: 'domain-screen', operation: 'domainScreen', args: ['domains...'], show: { rows: 'results' }, examples: ['domain-screen example.com example.org'] },
  { name: 'company', operation: 'company', args: ['url'], examples: ['company https://example.com'] },
  { name: 'products', operation: 'products', args: ['url'], show: { rows: 'products', csv: 'products' }, examples: ['products https://shop.example.com --limit 50 -o out/'] },
  { name: 'posts', operation: 'posts', args: ['url'], show: { rows: 'posts' }, examples: ['posts https://blog.example.com --limit 20 --json'] },
  {
    name: 'leads',
    operation: 'leadsStart',
    args: ['query'],
    job: 'leads',
    show: { rows: 'leads', csv: 'leads' },
    examples: ['leads dentists --where "Lyon, France" --limit 50 -o out/', 'leads bakeries --country BE --json'],
  },
  { name: 'leads-sources', operation: 'leadsSources', show: { rows: 'sources' }, examples: ['leads-sources --country FR'] },
  { name: 'leads-status', operation: 'leadsStatus', args: ['job_id'], job: 'leads', show: { rows: 'leads', csv: 'leads' }, examples: ['leads-status JOB_ID --wait -o out/'] },
  { name: 'leads-cancel', operation: 'leadsCancel', args: ['job_id'], examples: ['leads-cancel JOB_ID'] },
  { name: 'social', operation: 'socialCatalog', examples: ['social --json'] },
  { name: 'social-run', operation: 'socialRun', args: ['platform', 'endpoint'], examples: ['social-run reddit search --data \'{"query":"web scraping"}\''] },
  { name: 'templates', operation: 'templates', show: { rows: 'templates' }, examples: ['templates'] },
];

export const GROUPS: readonly GroupSpec[] = [
  {
    name: 'monitor',
    summary: 'Monitors: pages checked for changes on a schedule',
    commands: [
      { name: 'create', operation: 'monitorCreate', args: ['name', 'urls...'], examples: ['monitor create Pricing https://example.com/pricing --interval-minutes 60'] },
      { name: 'list', operation: 'monitorList', show: { rows: 'monitors' }, examples: ['monitor list'] },
      { name: 'get', operation: 'monitorGet', args: ['monitor_id'], examples: ['monitor get MONITOR_ID'] },
      { name: 'update', operation: 'monitorUpdate', args: ['monitor_id'], examples: ['monitor update MONITOR_ID --status paused', 'monitor update MONITOR_ID --status active --interval-minutes 30'] },
      { name: 'run', operation: 'monitorRun', args: ['monitor_id'], examples: ['monitor run MONITOR_ID'] },
      { name: 'checks', operation: 'monitorChecks', args: ['monitor_id'], show: { rows: 'checks' }, examples: ['monitor checks MONITOR_ID --limit 5'] },
      { name: 'delete', operation: 'monitorDelete', args: ['monitor_id'], examples: ['monitor delete MONITOR_ID'] },
    ],
  },
  {
    name: 'watch',
    summary: 'Mention watches: keywords looked for on the platforms',
    commands: [
      { name: 'create', operation: 'watchCreate', args: ['name', 'keywords...'], examples: ['watch create Acme acme "acme corp" --platforms web,reddit'] },
      { name: 'list', operation: 'watchList', show: { rows: 'watches' }, examples: ['watch list'] },
      { name: 'get', operation: 'watchGet', args: ['watch_id'], examples: ['watch get WATCH_ID'] },
      { name: 'update', operation: 'watchUpdate', args: ['watch_id'], examples: ['watch update WATCH_ID --interval-minutes 120'] },
      { name: 'test', operation: 'watchTest', args: ['watch_id'], show: { rows: 'mentions' }, examples: ['watch test WATCH_ID'] },
      { name: 'delete', operation: 'watchDelete', args: ['watch_id'], examples: ['watch delete WATCH_ID'] },
    ],
  },
  {
    name: 'mentions',
    summary: 'Mentions the watches found',
    commands: [
      { name: 'list', operation: 'mentionList', show: { rows: 'mentions', csv: 'mentions' }, examples: ['mentions list --watch-id WATCH_ID --category complaint', 'mentions list -o out/'] },
      { name: 'update', operation: 'mentionUpdate', args: ['mention_id'], examples: ['mentions update MENTION_ID --status done'] },
    ],
  },
];
