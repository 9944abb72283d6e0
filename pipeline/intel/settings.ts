/**
 * The settings of site and company intelligence (POST /v1/domain, /v1/domain/report,
 * /v1/domain/history/snapshots, /v1/domain/screen; the intel pool, actors/intel/): where the
 * registries, DNS and the Wayback Machine are reached, and how long and how wide their calls
 * and a report's page reads run. This family's part of the one settings table:
 * pipeline/service/settings.ts assembles the parts, pipeline/runtime/config.ts parses them;
 * docs/configuration.md lists them.
 *
 * The endpoints are operator configuration, trusted as SEARXNG_URL is: they may be private
 * addresses. The pages a report reads (the website, archived snapshots, linking pages) go
 * through the scrape path and its SSRF guard like any page.
 */
import { isIP } from 'node:net';
import { ConfigError, type ConfigOf, type SettingsTable } from '../runtime/config.js';

export const INTEL_SETTINGS = {
  rdapBootstrapUrl: {
    env: 'RDAP_BOOTSTRAP_URL',
    type: 'string',
    default: 'https://data.iana.org/rdap/dns.json',
    description:
      "IANA's RDAP bootstrap file for domains (RFC 9224), which names each top-level domain's registry server; read at start and refreshed daily over the snapshot the service ships. `off`: only the shipped snapshot is used.",
  },
  rdapBaseUrl: {
    env: 'RDAP_BASE_URL',
    type: 'string',
    default: null,
    description:
      'One RDAP server asked for every top-level domain instead of the registries the bootstrap file names (`<RDAP_BASE_URL>/domain/<name>`): a local mirror or test server. Unset: each registry is asked.',
  },
  rdapTimeoutMs: {
    env: 'RDAP_TIMEOUT_MS',
    type: 'integer',
    default: 10000,
    min: 500,
    max: 60000,
    description: "How long one registry lookup may take (the registry's answer and the registrar's record it links to); past it the section reads `registry_timeout`.",
  },
  rdapRegistryConcurrency: {
    env: 'RDAP_REGISTRY_CONCURRENCY',
    type: 'integer',
    default: 10,
    min: 1,
    max: 200,
    description: 'RDAP requests one intel process sends to one registry server at the same time; further lookups of that registry wait (registries rate-limit per client).',
  },
  dnsServers: {
    env: 'DNS_SERVERS',
    type: 'string',
    default: null,
    description:
      'DNS servers asked for A, AAAA, MX, NS and TXT records, comma-separated IP addresses with an optional port (`1.1.1.1,8.8.8.8:53,[2606:4700:4700::1111]:53`). Unset: the system resolvers.',
  },
  dnsTimeoutMs: {
    env: 'DNS_TIMEOUT_MS',
    type: 'integer',
    default: 3000,
    min: 100,
    max: 30000,
    description: 'How long one DNS query waits for an answer before it is tried again (DNS_TRIES) or reads `dns_timeout`.',
  },
  dnsTries: {
    env: 'DNS_TRIES',
    type: 'integer',
    default: 2,
    min: 1,
    max: 5,
    description: 'Times one DNS query is sent before it reads `dns_timeout`.',
  },
  waybackUrl: {
    env: 'WAYBACK_URL',
    type: 'string',
    default: 'https://web.archive.org',
    description:
      "Where the Wayback Machine is reached: its CDX index (`/cdx/search/cdx`) lists a domain's archived home pages, and the archived pages (`/web/<timestamp>id_/<url>`) are read through the scrape path.",
  },
  waybackTimeoutMs: {
    env: 'WAYBACK_TIMEOUT_MS',
    type: 'integer',
    default: 20000,
    min: 1000,
    max: 120000,
    description: 'How long the Wayback Machine may take to list a domain\'s captures; past it the report\'s history reads `archive_timeout`.',
  },
  domainPageTimeoutMs: {
    env: 'DOMAIN_PAGE_TIMEOUT_MS',
    type: 'integer',
    default: 20000,
    min: 1000,
    max: 120000,
    description: "How long a domain report waits for one page it reads (today's website, an archived snapshot, a linking page: the scrape's `timeout`).",
  },
  domainPageConcurrency: {
    env: 'DOMAIN_PAGE_CONCURRENCY',
    type: 'integer',
    default: 6,
    min: 1,
    max: 50,
    description: 'Pages one domain report (or snapshot load) reads at the same time.',
  },
  domainReportBudgetMs: {
    env: 'DOMAIN_REPORT_BUDGET_MS',
    type: 'integer',
    default: 45000,
    min: 1000,
    max: 300000,
    description:
      "How long a domain report (and a snapshot load) spends reading archived snapshots and linking pages before it answers: the years not loaded by then are listed in `evidence.history.pending`, to load with POST /v1/domain/history/snapshots.",
  },
  domainScreenConcurrency: {
    env: 'DOMAIN_SCREEN_CONCURRENCY',
    type: 'integer',
    default: 100,
    min: 1,
    max: 500,
    description: 'Names of one screen checked at the same time (each registry further bounded by RDAP_REGISTRY_CONCURRENCY).',
  },
  sitePageTimeoutMs: {
    env: 'SITE_PAGE_TIMEOUT_MS',
    type: 'integer',
    default: 15000,
    min: 1000,
    max: 120000,
    description: 'How long POST /v1/company, /v1/products and /v1/posts wait for one page of the site they read (through the fetch path); a page past it is one the site did not answer.',
  },
  siteReadBudgetMs: {
    env: 'SITE_READ_BUDGET_MS',
    type: 'integer',
    default: 60000,
    min: 2000,
    max: 300000,
    description:
      'How long one POST /v1/company, /v1/products or /v1/posts spends reading the site: past it no further page is asked for and the call answers what it has read, with a `warning` saying it stopped.',
  },
  companyCacheHours: {
    env: 'COMPANY_CACHE_HOURS',
    type: 'integer',
    default: 24,
    min: 0,
    max: 720,
    description:
      "How long a company answer is kept for the key that asked: the same company asked again within it (by its domain or any URL on it) is answered from the stored answer, free. 0 turns it off. A stored answer with contacts also answers a request without them.",
  },
} as const satisfies SettingsTable;

/** The values of this part, as pipeline/runtime/config.ts parses them. */
export type IntelConfig = ConfigOf<typeof INTEL_SETTINGS>;

/** RDAP_BOOTSTRAP_URL as the client takes it: null for `off` (the shipped snapshot only). */
export function rdapBootstrapOf(config: Pick<IntelConfig, 'rdapBootstrapUrl'>): string | null {
  const value = config.rdapBootstrapUrl.trim();
  return value === '' || value.toLowerCase() === 'off' ? null : value;
}

/** One `DNS_SERVERS` entry: an IP address, with an optional port (`[v6]:port` for IPv6). */
function dnsServer(entry: string): string | null {
  if (isIP(entry) !== 0) return entry;
  const bracketed = entry.startsWith('[') ? entry.indexOf(']') : -1;
  const host = bracketed > 0 ? entry.slice(1, bracketed) : entry.slice(0, entry.lastIndexOf(':'));
  const port = bracketed > 0 ? entry.slice(bracketed + 2) : entry.slice(entry.lastIndexOf(':') + 1);
  if (bracketed > 0 && entry[bracketed + 1] !== ':') return null;
  if (!/^\d{1,5}$/.test(port) || Number(port) < 1 || Number(port) > 65535) return null;
  const family = isIP(host);
  if (family === 0 || (family === 6 && bracketed < 0)) return null;
  return entry;
}

/**
 * DNS_SERVERS as the DNS client takes it (`host:port` entries for Node's resolver), or null
 * for the system resolvers. A malformed entry stops the process at start (ConfigError).
 */
export function dnsServersOf(config: Pick<IntelConfig, 'dnsServers'>): string[] | null {
  if (config.dnsServers === null || config.dnsServers.trim() === '') return null;
  return config.dnsServers.split(',').map((raw, i) => {
    const entry = raw.trim();
    const server = entry === '' ? null : dnsServer(entry);
    if (server === null) throw new ConfigError('DNS_SERVERS', `entry ${i + 1} ("${entry}") is not an IP address with an optional port (1.1.1.1, 1.1.1.1:53, [::1]:53)`);
    return server;
  });
}
