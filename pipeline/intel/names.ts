/**
 * Domain names as the domain operations take them: "a domain or any URL on it; a URL and its
 * bare domain are the same request" (the spec). `readDomainName` turns what a caller sent
 * into the registrable domain a registry holds, or says why it is not one.
 *
 * - A URL (`https://www.example.com/shop?x`) or a bare name (`Example.COM.`, `example.com/shop`,
 *   `example.com:8080`): its host, through WHATWG URL parsing, which lower-cases it and turns
 *   an internationalised name into its A-labels (`bücher.de` → `xn--bcher-kva.de`).
 * - The registrable domain of that host, public-suffix aware (`tldts`, the ICANN section
 *   only: `blog.example.co.uk` → `example.co.uk`, `someone.github.io` → `github.io`, the
 *   name the registry holds). A subdomain URL is a request about its registrable domain; the
 *   answer names the host it was given.
 * - Refused, each with its reason: a scheme other than http(s), a URL with a user or
 *   password, an IP address, `localhost` and `*.localhost`, a single label, a label over 63
 *   characters or a name over 253, characters outside letters, digits and hyphens (or a
 *   hyphen at a label's edge), a public suffix itself (`co.uk`), a special-use top-level
 *   domain (RFC 6761 and its successors: `test`, `example`, `invalid`, `local`, `onion`,
 *   `internal`, `alt`, `arpa`), and a top-level domain outside the ICANN section of the
 *   public suffix list (`corp`, `lan`): such names are never sent to an outside registry.
 *
 * Everything here is linear string work on input the schema already bounds (2,048 characters).
 */
import { isIP } from 'node:net';
import { domainToUnicode } from 'node:url';
import { parse as parseDomain } from 'tldts';
import { bareHostname } from '../runtime/net/guard.js';

export const NAME_PROBLEMS = [
  'not_a_name',
  'unsupported_scheme',
  'credentials',
  'ip_address',
  'local_name',
  'single_label',
  'label_too_long',
  'name_too_long',
  'bad_characters',
  'public_suffix',
  'reserved_tld',
  'unknown_tld',
] as const;

export type NameProblem = (typeof NAME_PROBLEMS)[number];

export interface DomainName {
  /** The registrable domain, lower case, A-labels (punycode): what registries and DNS are asked for. */
  readonly domain: string;
  /** The host the input named (may be a subdomain of `domain`), lower case, A-labels. */
  readonly host: string;
  /** `domain` in Unicode (U-labels); the same as `domain` for an ASCII name. */
  readonly unicode: string;
}

export type NameReading = { readonly ok: true; readonly name: DomainName } | { readonly ok: false; readonly problem: NameProblem; readonly message: string };

/** Longest name DNS carries, in characters (RFC 1035: 255 octets on the wire). */
export const MAX_NAME_LENGTH = 253;
/** Longest label (RFC 1035). */
export const MAX_LABEL_LENGTH = 63;

/**
 * Top-level domains set aside for special use (RFC 6761 `test`, `example`, `invalid`,
 * `localhost`; RFC 6762 `local`; RFC 7686 `onion`; RFC 9476 `alt`; ICANN's `internal`; the
 * infrastructure domain `arpa`, `home.arpa` of RFC 8375 among it). No registry holds their names.
 */
export const SPECIAL_USE_TLDS: ReadonlySet<string> = new Set(['test', 'example', 'invalid', 'localhost', 'local', 'onion', 'alt', 'internal', 'arpa']);

const refused = (problem: NameProblem, message: string): NameReading => ({ ok: false, problem, message });

/** Letters, digits and hyphens, not starting or ending with a hyphen (the LDH rule of RFC 1123). */
function isLdhLabel(label: string): boolean {
  if (label.startsWith('-') || label.endsWith('-')) return false;
  for (let i = 0; i < label.length; i++) {
    const c = label.charCodeAt(i);
    const ok = (c >= 0x61 && c <= 0x7a) || (c >= 0x30 && c <= 0x39) || c === 0x2d;
    if (!ok) return false;
  }
  return true;
}

/** The input as a URL to parse: itself when it names a scheme, else `http://` before it. */
function asUrl(input: string): { url: string } | { problem: NameProblem; message: string } {
  const scheme = input.indexOf('://');
  if (scheme >= 0) {
    const name = input.slice(0, scheme).toLowerCase();
    if (name !== 'http' && name !== 'https') return { problem: 'unsupported_scheme', message: `a ${name || 'missing'}:// URL is not a web address; give a domain or an http(s) URL on it` };
    return { url: input };
  }
  return { url: input.startsWith('//') ? `http:${input}` : `http://${input}` };
}

function hasSpaceOrControl(input: string): boolean {
  for (let i = 0; i < input.length; i++) {
    const c = input.charCodeAt(i);
    if (c <= 0x20 || c === 0x7f) return true;
  }
  return false;
}

/** The host of `input`, or why it has none that could be a domain. */
function hostOf(input: string): { host: string } | { problem: NameProblem; message: string } {
  const trimmed = input.trim();
  if (trimmed === '' || hasSpaceOrControl(trimmed)) return { problem: 'not_a_name', message: 'not a domain name or URL (empty, or spaces inside)' };
  const target = asUrl(trimmed);
  if (!('url' in target)) return target;
  let url: URL;
  try {
    url = new URL(target.url);
  } catch {
    return { problem: 'not_a_name', message: 'not a domain name or URL that can be read' };
  }
  if (url.username !== '' || url.password !== '') return { problem: 'credentials', message: 'a URL with a user name or password is refused; give the domain alone' };
  const host = bareHostname(url);
  if (host === '') return { problem: 'not_a_name', message: 'no host name in it' };
  return { host };
}

/** Reads a domain or a URL on it into its registrable domain (see the file's comment), or why it is not one. */
export function readDomainName(input: string): NameReading {
  const found = hostOf(input);
  if (!('host' in found)) return refused(found.problem, found.message);
  const { host } = found;
  if (isIP(host) !== 0) return refused('ip_address', `${host} is an IP address, not a domain name`);
  if (host === 'localhost' || host.endsWith('.localhost')) return refused('local_name', `${host} is a local name`);
  if (host.length > MAX_NAME_LENGTH) return refused('name_too_long', `the name is ${host.length} characters long; at most ${MAX_NAME_LENGTH}`);
  const labels = host.split('.');
  if (labels.some((l) => l === '')) return refused('not_a_name', `${host} has an empty label`);
  if (labels.length < 2) return refused('single_label', `${host} is a single label, not a domain under a top-level domain`);
  const long = labels.find((l) => l.length > MAX_LABEL_LENGTH);
  if (long !== undefined) return refused('label_too_long', `a label is ${long.length} characters long; at most ${MAX_LABEL_LENGTH}`);
  if (!labels.every(isLdhLabel)) return refused('bad_characters', `${host} has characters other than letters, digits and inner hyphens`);
  const tld = labels[labels.length - 1] as string;
  if (SPECIAL_USE_TLDS.has(tld)) return refused('reserved_tld', `.${tld} is a special-use top-level domain: no registry holds its names`);
  const parsed = parseDomain(host, { allowPrivateDomains: false });
  if (!parsed.isIcann) return refused('unknown_tld', `.${tld} is not a top-level domain of the public DNS`);
  if (parsed.domain === null) return refused('public_suffix', `${host} is a public suffix, under which names are registered, not a registrable domain`);
  return { ok: true, name: { domain: parsed.domain, host, unicode: domainToUnicode(parsed.domain) || parsed.domain } };
}
