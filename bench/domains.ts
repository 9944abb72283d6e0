/**
 * Screening domain names for availability (issue 29, item 7): BENCH_DOMAINS_NAMES names
 * (default 500, bench/servers/domain-world.ts: half registered, a fifth without a registry
 * record but still in DNS, the rest free) against a local RDAP registry and a local DNS server
 * that answer after 50–150 ms (BENCH_DOMAINS_LATENCY_MIN_MS, BENCH_DOMAINS_LATENCY_MAX_MS),
 * both in a child process (bench/servers/domains.ts).
 *
 *   ours      the operation itself: one POST /v1/domain/screen of every name to the service in
 *             embedded mode in this process (`startService` with the production actors:
 *             gateway, the intel pool, pipeline/intel/screen.ts over pipeline/clients/rdap.ts
 *             and dns.ts), pointed at the two servers with RDAP_BASE_URL and DNS_SERVERS;
 *             DOMAIN_SCREEN_CONCURRENCY names at once (BENCH_DOMAINS_CONCURRENCY, default its
 *             100), the RDAP client keeping its own limit per registry (10 requests at once);
 *             for each name the registry lookup (a thin registry's record, then the
 *             registrar's it links to), and for a name without a record `exists` in DNS (NS,
 *             SOA and A at once). Timed from the request to its answer.
 *   baseline  a plain script doing the same by hand, one name after the other: fetch() the
 *             registry's record and the registrar's, or on a 404 ask NS, SOA, then A with
 *             Node's resolver until one has data; over the first BENCH_DOMAINS_BASELINE_NAMES
 *             names (default 100: one by one, 500 names would take a minute and a half for a
 *             per-name figure that does not change)
 *
 * Both must reach the same verdict for every name the baseline screened (`agree`). Figures:
 * seconds per name for each, the ratio (the baseline's seconds per name over ours: higher is
 * better), the registry's peak of requests in flight, the credits the screen was charged (one
 * per name the registry answered for). Target: ≤ 0.05 s per name. One JSON line on stdout; a
 * progress bar on stderr.
 *
 *   npx tsx bench/domains.ts          (alone; `npm run bench` runs it with the others)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { Resolver } from 'node:dns/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startService } from '../main.js';
import { createLogger } from '../pipeline/runtime/log.js';
import { loadConfig } from '../pipeline/service/config.js';
import { emit, positiveInteger, startChild } from './lib.js';
import { domainWorld } from './servers/domain-world.js';

const NAMES = positiveInteger('BENCH_DOMAINS_NAMES', 500);
const BASELINE_NAMES = Math.min(NAMES, positiveInteger('BENCH_DOMAINS_BASELINE_NAMES', 100));
const CONCURRENCY = positiveInteger('BENCH_DOMAINS_CONCURRENCY', 100);
const LATENCY_MIN_MS = positiveInteger('BENCH_DOMAINS_LATENCY_MIN_MS', 50);
const LATENCY_MAX_MS = positiveInteger('BENCH_DOMAINS_LATENCY_MAX_MS', 150);
const TARGET_SECONDS_PER_NAME = 0.05;
const KEY = 'bench-domains-key-0123456789';

export type Verdict = 'registered' | 'likely_available' | 'no_registry_record' | 'unknown';

/** The screen of `names` through the running service's POST /v1/domain/screen: each name's status, and what it was charged. */
async function screenThroughService(base: string, names: readonly string[]): Promise<{ verdicts: Verdict[]; credits: number }> {
  const res = await fetch(`${base}/v1/domain/screen`, {
    method: 'POST',
    headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify({ domains: names }),
  });
  const body = (await res.json()) as { data?: { results: { status: string }[]; cost: { credits: number } } };
  if (res.status !== 200 || !body.data) throw new Error(`the screen answered ${res.status}: ${JSON.stringify(body).slice(0, 300)}`);
  return { verdicts: body.data.results.map((r) => (r.status === 'invalid' ? 'unknown' : (r.status as Verdict))), credits: body.data.cost.credits };
}

/** The plain script: fetch() and Node's resolver, one name after the other. */
async function baselineName(name: string, rdapUrl: string, resolver: Resolver): Promise<Verdict> {
  const res = await fetch(`${rdapUrl}/domain/${name}`, { headers: { accept: 'application/rdap+json' } });
  if (res.status === 200) {
    const record = (await res.json()) as { links?: { rel?: string; href?: string }[] };
    const related = record.links?.find((l) => l.rel === 'related')?.href;
    if (related) await (await fetch(related, { headers: { accept: 'application/rdap+json' } })).json();
    return 'registered';
  }
  await res.arrayBuffer();
  if (res.status !== 404) return 'unknown';
  for (const ask of [() => resolver.resolveNs(name), () => resolver.resolveSoa(name), () => resolver.resolve4(name)]) {
    try {
      await ask();
      return 'no_registry_record';
    } catch (error) {
      const code = (error as { code?: string }).code;
      if (code === 'ENOTFOUND') return 'likely_available';
      if (code !== 'ENODATA') return 'unknown';
    }
  }
  return 'likely_available';
}

function progress(label: string, done: number, total: number): void {
  const width = 30;
  const filled = Math.round((done / total) * width);
  process.stderr.write(`\rbench/domains ${label} [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${done}/${total}   `);
  if (done >= total) process.stderr.write('\n');
}

const round4 = (n: number) => Math.round(n * 10_000) / 10_000;

const world = domainWorld(NAMES);
const child = await startChild(new URL('./servers/domains.ts', import.meta.url).pathname, {
  BENCH_DOMAINS_NAMES: String(NAMES),
  BENCH_DOMAINS_LATENCY_MIN_MS: String(LATENCY_MIN_MS),
  BENCH_DOMAINS_LATENCY_MAX_MS: String(LATENCY_MAX_MS),
});
try {
  const rdapUrl = String(child.ready.rdapUrl);
  const dnsServer = String(child.ready.dnsServer);
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-domains-'));
  const config = loadConfig({
    DATA_DIR: dataDir,
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'silent',
    API_KEY: KEY,
    RDAP_BASE_URL: rdapUrl,
    DNS_SERVERS: dnsServer,
    DNS_TIMEOUT_MS: '2000',
    DNS_TRIES: '2',
    DOMAIN_SCREEN_CONCURRENCY: String(CONCURRENCY),
  });
  const service = await startService({ config, log: createLogger('silent'), role: 'all' });
  let ours: Verdict[];
  let oursSeconds: number;
  let credits: number;
  try {
    const address = service.app?.server.address();
    if (!address || typeof address !== 'object') throw new Error('the gateway is not listening');
    progress('screen', 0, NAMES);
    const oursStarted = performance.now();
    ({ verdicts: ours, credits } = await screenThroughService(`http://127.0.0.1:${address.port}`, world.names));
    oursSeconds = (performance.now() - oursStarted) / 1000;
    progress('screen', NAMES, NAMES);
  } finally {
    await service.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
  const stats = await child.ask({ type: 'stats' });

  const resolver = new Resolver({ timeout: 2_000, tries: 2 });
  resolver.setServers([dnsServer]);
  const baseline: Verdict[] = [];
  const baselineStarted = performance.now();
  for (const name of world.names.slice(0, BASELINE_NAMES)) {
    baseline.push(await baselineName(name, rdapUrl, resolver));
    progress('one by one', baseline.length, BASELINE_NAMES);
  }
  const baselineSeconds = (performance.now() - baselineStarted) / 1000;

  const expected = (name: string): Verdict => {
    const kind = world.kinds.get(name);
    return kind === 'registered' ? 'registered' : kind === 'parked' ? 'no_registry_record' : 'likely_available';
  };
  const oursPerName = oursSeconds / NAMES;
  const baselinePerName = baselineSeconds / BASELINE_NAMES;
  emit({
    bench: 'domains',
    scenario: 'screen',
    names: NAMES,
    concurrency: CONCURRENCY,
    latency_ms: [LATENCY_MIN_MS, LATENCY_MAX_MS],
    seconds_per_name: round4(oursPerName),
    seconds: round4(oursSeconds),
    baseline_names: BASELINE_NAMES,
    baseline_seconds_per_name: round4(baselinePerName),
    ratio: round4(baselinePerName / oursPerName),
    correct: ours.filter((v, i) => v === expected(world.names[i] as string)).length,
    agree: baseline.every((v, i) => v === ours[i]),
    credits,
    registry_requests: stats.rdapRequests,
    registry_max_in_flight: stats.rdapMaxInFlight,
    target_seconds_per_name: TARGET_SECONDS_PER_NAME,
    meets_target: oursPerName <= TARGET_SECONDS_PER_NAME,
  });
} finally {
  await child.stop();
}
