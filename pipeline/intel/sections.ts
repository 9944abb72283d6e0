/**
 * The sections of a domain lookup and of a report's evidence — registration (RDAP), DNS,
 * mail records, backlinks (the link graph) — built from the outside services' answers, and
 * the per-section failure that stands in for one that did not answer. A section that fails
 * is `null` with an entry in the answer's `errors`, never a failed request: the others still
 * answer.
 *
 * Section error codes are `<source>_<kind>`: the source `registry` (RDAP), `dns` or `archive`
 * (the Wayback Machine), the kind `rate_limited` (with `retryAfter` in seconds when the
 * service said), `refused`, `unavailable`, `timeout` or `unreadable`; `registry_unsupported`
 * for a top-level domain no RDAP service answers for, `link_graph_unavailable` when the
 * store did not answer, and `internal_error` for anything else.
 */
import type { DnsLookup, DnsRecords } from '../clients/dns.js';
import type { RdapLookup } from '../clients/rdap.js';
import { isServiceError } from '../clients/service-http.js';
import type { Backlinks } from './links.js';

export type SectionName = 'registration' | 'dns' | 'mail' | 'backlinks' | 'website' | 'history' | 'links';

export interface SectionError {
  readonly section: SectionName;
  readonly code: string;
  readonly message: string;
  /** Seconds to wait before asking again, when a service rate-limited us and said how long. */
  readonly retryAfter?: number;
}

export interface RegistrationSection {
  /** Whether the registry holds a record of the domain (no record is not proof it is free). */
  readonly found: boolean;
  /** The RDAP server that answered. */
  readonly registry: string;
  readonly created: string | null;
  readonly expires: string | null;
  readonly updated: string | null;
  readonly transferred: string | null;
  /** Whole days since `created`, by the service's clock. */
  readonly ageDays: number | null;
  /** Whole days until `expires` (negative once past). */
  readonly expiresInDays: number | null;
  readonly registrar: { readonly name: string | null; readonly ianaId: string | null; readonly url: string | null } | null;
  /** EPP status words as the registry gives them (`client transfer prohibited`, …). */
  readonly status: readonly string[];
  readonly nameservers: readonly string[];
  readonly dnssec: boolean | null;
  /** The RDAP records read (the registry's, then the registrar's it links to). */
  readonly sources: readonly string[];
}

export interface DnsSection extends DnsRecords {
  /** Whether the name exists in DNS at all (false: NXDOMAIN). */
  readonly exists: boolean;
}

export interface MailSection {
  readonly mx: DnsRecords['MX'];
  /** The domain's SPF record (`v=spf1 …`), if any. */
  readonly spf: string | null;
  /** Its DMARC policy (`v=DMARC1; …` at `_dmarc.<domain>`), if any. */
  readonly dmarc: string | null;
}

export interface BacklinksSection {
  /** Referring domains, busiest first, at most the limit asked for. */
  readonly referringDomains: Backlinks['referringDomains'];
  readonly totalReferringDomains: number;
  /** Whether more referring domains are known than are listed. */
  readonly truncated: boolean;
  /** How much of the web the link graph covers: it holds only the pages this instance has read. */
  readonly coverage: Backlinks['coverage'] & { readonly note: string };
}

const DAY_MS = 86_400_000;
const EMPTY_RECORDS: DnsRecords = { A: [], AAAA: [], MX: [], NS: [], TXT: [] };

/** Whole days from `fromMs` to the ISO time `iso` (negative when it is past), or null. */
export function daysUntil(iso: string | null, fromMs: number): number | null {
  const at = iso === null ? Number.NaN : Date.parse(iso);
  return Number.isFinite(at) ? Math.floor((at - fromMs) / DAY_MS) : null;
}

/** The registration section of a registry's answer at `nowMs`, or the error when no registry serves the name. */
export function registrationSection(lookup: RdapLookup, nowMs: number): RegistrationSection | SectionError {
  if (lookup.outcome === 'no_registry') {
    const why = lookup.reason === 'reserved_tld' ? 'its top-level domain is reserved: no registry holds it' : 'no RDAP service is known for its top-level domain';
    return { section: 'registration', code: 'registry_unsupported', message: `the registration cannot be read: ${why}` };
  }
  if (lookup.outcome === 'not_found') {
    return { found: false, registry: lookup.registry, created: null, expires: null, updated: null, transferred: null, ageDays: null, expiresInDays: null, registrar: null, status: [], nameservers: [], dnssec: null, sources: [] };
  }
  const d = lookup.domain;
  const registered = d.registered === null ? Number.NaN : Date.parse(d.registered);
  return {
    found: true,
    registry: lookup.registry,
    created: d.registered,
    expires: d.expires,
    updated: d.lastChanged,
    transferred: d.transferred,
    ageDays: Number.isFinite(registered) ? Math.floor((nowMs - registered) / DAY_MS) : null,
    expiresInDays: daysUntil(d.expires, nowMs),
    registrar: d.registrar,
    status: d.status,
    nameservers: d.nameservers,
    dnssec: d.secureDns,
    sources: d.sources,
  };
}

export function dnsSection(lookup: DnsLookup): DnsSection {
  return lookup.outcome === 'nxdomain' ? { exists: false, ...EMPTY_RECORDS } : { exists: true, ...lookup.records };
}

/** The TXT record that starts with `prefix` (case-insensitive), if any. */
function txtStarting(records: readonly string[], prefix: string): string | null {
  return records.find((r) => r.trim().toLowerCase().startsWith(prefix)) ?? null;
}

/** Mail records: MX and SPF from the domain's DNS, DMARC from `_dmarc.<domain>`'s TXT records. */
export function mailSection(dns: DnsSection, dmarc: DnsLookup | null): MailSection {
  const dmarcTxt = dmarc?.outcome === 'found' ? dmarc.records.TXT : [];
  return { mx: dns.MX, spf: txtStarting(dns.TXT, 'v=spf1'), dmarc: txtStarting(dmarcTxt, 'v=dmarc1') };
}

export const COVERAGE_NOTE =
  'The link graph holds the links of the pages this instance has read (scrapes and crawls), not the whole web: domains linking here from pages it has never read are not listed.';

export function backlinksSection(found: Backlinks): BacklinksSection {
  return {
    referringDomains: found.referringDomains,
    totalReferringDomains: found.totalReferringDomains,
    truncated: found.totalReferringDomains > found.referringDomains.length,
    coverage: { ...found.coverage, note: COVERAGE_NOTE },
  };
}

const SOURCE_PREFIX: Readonly<Record<string, string>> = { rdap: 'registry', dns: 'dns', wayback: 'archive' };
const KIND_SUFFIX: Readonly<Record<string, string>> = { rate_limited: 'rate_limited', rejected: 'refused', unavailable: 'unavailable', timeout: 'timeout', unreadable: 'unreadable' };

/** The section error standing for `error`, thrown while `section` asked its service. */
export function sectionError(section: SectionName, error: unknown): SectionError {
  if (isServiceError(error) && SOURCE_PREFIX[error.service]) {
    const code = `${SOURCE_PREFIX[error.service]}_${KIND_SUFFIX[error.kind] ?? 'unavailable'}`;
    const retryAfter = error.retryAfterMs !== null ? Math.max(1, Math.ceil(error.retryAfterMs / 1000)) : undefined;
    return { section, code, message: error.message, ...(retryAfter !== undefined ? { retryAfter } : {}) };
  }
  if (section === 'backlinks' || section === 'links') return { section, code: 'link_graph_unavailable', message: 'the link graph could not be read' };
  return { section, code: 'internal_error', message: `the ${section} section failed` };
}

export function isSectionError(value: unknown): value is SectionError {
  return typeof value === 'object' && value !== null && 'section' in value && 'code' in value && !('found' in value);
}
