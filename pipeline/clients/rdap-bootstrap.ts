/**
 * Which RDAP server answers for a domain: IANA's bootstrap file for domain names (RFC 9224,
 * `{version, publication, services: [[[labels…], [base URLs…]], …]}`), read into a map from
 * label (a TLD, or a longer suffix) to one base URL, and the names that never go to a registry.
 *
 * - The shipped copy is rdap-bootstrap.json beside this file (its source and date in
 *   rdap-bootstrap.md); pipeline/clients/rdap.ts replaces it with a fresher file when it can.
 * - Of an entry's base URLs the first https one is kept, else the first http one; each ends
 *   with `/` (RFC 9224 §3: the query path is appended). Labels are lower-cased; the longest
 *   label that is a suffix of the name wins (RFC 9224 §4).
 * - A file is refused (null) when it has no usable entry; bad entries are skipped. Entries,
 *   labels and URLs are counted and bounded (MAX_SERVICES, MAX_LABELS): a file is outside input.
 * - Reserved and private-use names (RFC 2606, RFC 6761, RFC 6762, RFC 7686, RFC 8375, RFC 9476,
 *   ICANN's `internal`, and the TLDs private networks use: `lan`, `corp`, `home`, …) are never
 *   sent to a registry, whatever the bootstrap file or RDAP_BASE_URL says.
 */
import shipped from './rdap-bootstrap.json' with { type: 'json' };
import { list, text } from './json-shapes.js';

export interface RdapBootstrap {
  /** The file's `publication` date, as it says it. */
  readonly publication: string | null;
  /** Label (`com`, `co.uk` if a file lists one) → base URL ending with `/`. */
  readonly registries: ReadonlyMap<string, string>;
}

export const MAX_SERVICES = 5_000;
export const MAX_LABELS = 20_000;
const MAX_URL_CHARS = 2_048;

/** TLDs (and `home.arpa`) for names that are not in the public DNS: never asked of a registry. */
export const RESERVED_SUFFIXES: readonly string[] = [
  'localhost', 'local', 'test', 'example', 'invalid', 'internal', 'onion', 'alt', 'home.arpa',
  'lan', 'corp', 'home', 'localdomain', 'intranet', 'private',
];

/** Whether `domain` is under a reserved or private-use suffix. */
export function isReservedName(domain: string): boolean {
  return RESERVED_SUFFIXES.some((suffix) => domain === suffix || domain.endsWith(`.${suffix}`));
}

/** Whether `name` is a lower-case A-label domain name: labels of a–z, 0–9 and `-`, no `-` at either end. */
export function isDomainName(name: string, minLabels = 1): boolean {
  if (name.length === 0 || name.length > 253) return false;
  const labels = name.split('.');
  return labels.length >= minLabels && labels.every(isLabel);
}

function isLabel(label: string): boolean {
  if (label.length === 0 || label.length > 63 || label.startsWith('-') || label.endsWith('-')) return false;
  for (const ch of label) if (!((ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch === '-')) return false;
  return true;
}

/** The file's map, or null when it has no usable entry (not a bootstrap file). */
export function parseBootstrap(json: unknown): RdapBootstrap | null {
  const file = typeof json === 'object' && json !== null && !Array.isArray(json) ? (json as Record<string, unknown>) : null;
  if (!file || !Array.isArray(file.services)) return null;
  const registries = new Map<string, string>();
  let labelsSeen = 0;
  for (const service of file.services.slice(0, MAX_SERVICES)) {
    const [labels, urls] = list(service);
    const base = baseUrlOf(list(urls));
    for (const raw of list(labels)) {
      if (++labelsSeen > MAX_LABELS) break;
      const label = text(raw)?.toLowerCase().replace(/\.$/, '');
      if (base && label && isDomainName(label) && !registries.has(label)) registries.set(label, base);
    }
  }
  return registries.size > 0 ? { publication: text(file.publication), registries } : null;
}

/** The first https URL of an entry, else the first http one, ending with `/`; null when none. */
function baseUrlOf(urls: readonly unknown[]): string | null {
  const parsed = urls.map(urlOf).filter((u): u is URL => u !== null);
  const chosen = parsed.find((u) => u.protocol === 'https:') ?? parsed[0];
  if (!chosen) return null;
  if (!chosen.pathname.endsWith('/')) chosen.pathname = `${chosen.pathname}/`;
  return chosen.href;
}

function urlOf(raw: unknown): URL | null {
  const value = text(raw);
  if (!value || value.length > MAX_URL_CHARS) return null;
  try {
    const url = new URL(value);
    if (url.protocol !== 'https:' && url.protocol !== 'http:') return null;
    url.search = '';
    url.hash = '';
    url.username = '';
    url.password = '';
    return url;
  } catch {
    return null;
  }
}

/** The base URL for `domain`: the longest suffix the file lists; null when none does. */
export function registryIn(bootstrap: RdapBootstrap, domain: string): string | null {
  const labels = domain.split('.');
  for (let i = 1; i < labels.length; i++) {
    const found = bootstrap.registries.get(labels.slice(i).join('.'));
    if (found) return found;
  }
  return labels.length === 1 ? (bootstrap.registries.get(domain) ?? null) : null;
}

let shippedCopy: RdapBootstrap | null = null;

/** The shipped snapshot (rdap-bootstrap.json), read once. */
export function shippedBootstrap(): RdapBootstrap {
  shippedCopy ??= parseBootstrap(shipped);
  if (!shippedCopy) throw new Error('pipeline/clients/rdap-bootstrap.json is not a usable RDAP bootstrap file');
  return shippedCopy;
}
