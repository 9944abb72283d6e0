/**
 * Screening domain names for availability (issue 29, item 7): BENCH_DOMAINS_NAMES names
 * (default 500, bench/servers/domain-world.ts: half registered, a fifth without a registry
 * record but still in DNS, the rest free) against a local RDAP registry and a local DNS server
 * that answer after 50–150 ms (BENCH_DOMAINS_LATENCY_MIN_MS, BENCH_DOMAINS_LATENCY_MAX_MS),
 * both in a child process (bench/servers/domains.ts).
 *
 *   ours      `screenNames` below through pipeline/clients/rdap.ts and dns.ts, as a screen
 *             runs them: BENCH_DOMAINS_CONCURRENCY names at once (default 50), the RDAP client
 *             keeping its own limit per registry (10 requests at once); for each name the
 *             registry lookup (a thin registry's record, then the registrar's it links to),
 *             and for a name without a record `exists` in DNS (NS, SOA and A at once)
 *   baseline  a plain script doing the same by hand, one name after the other: fetch() the
 *             registry's record and the registrar's, or on a 404 ask NS, SOA, then A with
 *             Node's resolver until one has data; over the first BENCH_DOMAINS_BASELINE_NAMES
 *             names (default 100: one by one, 500 names would take a minute and a half for a
 *             per-name figure that does not change)
 *
 * Both must reach the same verdict for every name the baseline screened (`agree`). Figures:
 * seconds per name for each, the ratio (the baseline's seconds per name over ours: higher is
 * better), the registry's peak of requests in flight. Target: ≤ 0.05 s per name. One JSON
 * line on stdout; a progress bar on stderr.
 *
 *   npx tsx bench/domains.ts          (alone; `npm run bench` runs it with the others)
 *
 * The screen itself is the domain family's operation; until that exists `screenNames` here
 * stands in for it with the same calls.
 */
import { Resolver } from 'node:dns/promises';
import { DnsClient } from '../pipeline/clients/dns.js';
import { RdapClient } from '../pipeline/clients/rdap.js';
import { isServiceError } from '../pipeline/clients/service-http.js';
import { mapBounded } from '../pipeline/runtime/bounded.js';
import { emit, positiveInteger, startChild } from './lib.js';
import { domainWorld } from './servers/domain-world.js';

const NAMES = positiveInteger('BENCH_DOMAINS_NAMES', 500);
const BASELINE_NAMES = Math.min(NAMES, positiveInteger('BENCH_DOMAINS_BASELINE_NAMES', 100));
const CONCURRENCY = positiveInteger('BENCH_DOMAINS_CONCURRENCY', 50);
const LATENCY_MIN_MS = positiveInteger('BENCH_DOMAINS_LATENCY_MIN_MS', 50);
const LATENCY_MAX_MS = positiveInteger('BENCH_DOMAINS_LATENCY_MAX_MS', 150);
const TARGET_SECONDS_PER_NAME = 0.05;
const LOOKUP_TIMEOUT_MS = 15_000;

export type Verdict = 'registered' | 'likely_available' | 'no_registry_record' | 'unknown';

/** One name: its registry record, and DNS for a name without one. */
async function screenName(name: string, clients: { readonly rdap: RdapClient; readonly dns: DnsClient }): Promise<Verdict> {
  try {
    const lookup = await clients.rdap.lookup(name, { timeoutMs: LOOKUP_TIMEOUT_MS });
    if (lookup.outcome === 'found') return 'registered';
    if (lookup.outcome === 'no_registry') return 'unknown';
    return (await clients.dns.exists(name)) ? 'no_registry_record' : 'likely_available';
  } catch (error) {
    if (isServiceError(error)) return 'unknown';
    throw error;
  }
}

/** The names screened in parallel, CONCURRENCY at once; `done` is told of each. */
export async function screenNames(names: readonly string[], clients: { readonly rdap: RdapClient; readonly dns: DnsClient }, done: () => void = () => undefined): Promise<Verdict[]> {
  const verdicts = await mapBounded(names, CONCURRENCY, async (name) => {
    const verdict = await screenName(name, clients);
    done();
    return verdict;
  });
  return verdicts.map((v) => v ?? 'unknown');
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
  const rdap = new RdapClient({ baseUrl: rdapUrl, bootstrapUrl: null });
  const dns = new DnsClient({ servers: [dnsServer], timeoutMs: 2_000, tries: 2 });

  let screened = 0;
  const oursStarted = performance.now();
  const ours = await screenNames(world.names, { rdap, dns }, () => progress('screen', ++screened, NAMES));
  const oursSeconds = (performance.now() - oursStarted) / 1000;
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
    registry_requests: stats.rdapRequests,
    registry_max_in_flight: stats.rdapMaxInFlight,
    target_seconds_per_name: TARGET_SECONDS_PER_NAME,
    meets_target: oursPerName <= TARGET_SECONDS_PER_NAME,
  });
} finally {
  await child.stop();
}
