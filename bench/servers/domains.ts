/**
 * Child process for bench/domains.ts: a local RDAP registry (test/helpers/fake-rdap.ts: thin
 * records, registrar records, 404s) and a local DNS server (test/helpers/fake-dns.ts, UDP and
 * TCP) for the names of bench/servers/domain-world.ts, both answering after a uniform
 * BENCH_DOMAINS_LATENCY_MIN_MS..BENCH_DOMAINS_LATENCY_MAX_MS delay (default 50..150 ms, a
 * registry and a name server across the internet). Reports `{port, rdapUrl, dnsServer}` over
 * IPC, answers `{type: 'stats'}` with the registry's request count and in-flight peak (then
 * forgets them), answers `cpu` and `memory`, and stops on SIGTERM.
 */
import { startFakeDns } from '../../test/helpers/fake-dns.js';
import { startFakeRdap } from '../../test/helpers/fake-rdap.js';
import { answerUsage } from './child.js';
import { domainWorld } from './domain-world.js';

const NAMES = Number(process.env.BENCH_DOMAINS_NAMES ?? 500);
const LATENCY: [number, number] = [Number(process.env.BENCH_DOMAINS_LATENCY_MIN_MS ?? 50), Number(process.env.BENCH_DOMAINS_LATENCY_MAX_MS ?? 150)];

const world = domainWorld(NAMES);
const rdap = await startFakeRdap({ domains: world.registry, latencyMs: LATENCY });
const dns = await startFakeDns({ zones: world.zones, latencyMs: LATENCY });

process.on('message', (message: { type?: string }) => {
  if (message.type !== 'stats') return;
  process.send?.({ rdapRequests: rdap.requests.length, rdapMaxInFlight: rdap.maxInFlight, dnsQueries: dns.queries });
  rdap.reset();
});
process.once('SIGTERM', () => {
  void Promise.all([rdap.close(), dns.close()]).finally(() => process.exit(0));
});
answerUsage();
process.send?.({ port: Number(new URL(rdap.url).port), rdapUrl: rdap.url, dnsServer: dns.server });
