/**
 * Email addresses on a page, including the ones pages hide from harvesters. Every scanner here
 * is linear in its input: no regular expression runs over page text with backtracking, each
 * `@` looks at most 64 characters left and 253 right, and each obfuscation token at most
 * OBFUSCATION_WINDOW characters ahead.
 *
 * Where addresses are read:
 * - `mailto:` links (percent-decoded, `?subject=…` dropped, comma-separated lists split);
 * - Cloudflare's email protection: `data-cfemail="<hex>"` and `/cdn-cgi/l/email-protection#<hex>`
 *   links (the first byte is the key every other byte is XORed with);
 * - data attributes: `data-email` / `data-mail` (as written, or reversed), and `data-user` (or
 *   `data-name`) with `data-domain` (and an optional `data-tld`);
 * - text written backwards and turned round by CSS (`direction: rtl` with
 *   `unicode-bidi: bidi-override`), read reversed;
 * - the visible text, after `deobfuscate`: `name [at] domain [dot] com`, `(at)`, `{at}`, `<at>`,
 *   `[@]`, `(.)`, and the bare words `name at domain dot com` when both words are there
 *   (HTML entities such as `&#64;` are already decoded by the page's parse).
 *
 * An address counts when its local part is 1–64 characters of letters, digits and `._%+-`
 * (no leading, trailing or doubled dot) and its domain ends in a public suffix of the ICANN
 * list (tldts): `logo@2x.png` and `user@localhost` do not. Placeholder domains (`example.com`
 * and the like, RFC 2606's) do not count either.
 */
import { parse as parseDomain } from 'tldts';
import type { CheerioAPI } from 'cheerio';
import type { Element } from 'domhandler';

/** How far an obfuscation token (`[ at ]`) may run. */
const OBFUSCATION_WINDOW = 8;
const MAX_LOCAL = 64;
const MAX_DOMAIN = 253;
const PLACEHOLDER_DOMAINS = new Set(['example.com', 'example.org', 'example.net', 'example.de', 'domain.com', 'yourdomain.com', 'yoursite.com', 'email.com', 'mail.com', 'company.com', 'test.com', 'sentry.io', 'wixpress.com']);

const isAlnum = (c: number): boolean => (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
const isLocalChar = (c: number): boolean => isAlnum(c) || c === 46 /* . */ || c === 95 /* _ */ || c === 37 /* % */ || c === 43 /* + */ || c === 45 /* - */;
const isDomainChar = (c: number): boolean => isAlnum(c) || c === 46 || c === 45;

/** The address when it is one (see the file comment), lower-cased; null otherwise. */
export function validEmail(candidate: string): string | null {
  const at = candidate.indexOf('@');
  if (at <= 0 || at !== candidate.lastIndexOf('@')) return null;
  const local = candidate.slice(0, at);
  const domain = candidate.slice(at + 1).toLowerCase();
  if (local.length > MAX_LOCAL || domain.length > MAX_DOMAIN || !domain.includes('.')) return null;
  for (let i = 0; i < local.length; i += 1) if (!isLocalChar(local.charCodeAt(i))) return null;
  if (local.startsWith('.') || local.endsWith('.') || local.includes('..')) return null;
  for (const label of domain.split('.')) {
    if (!label || label.length > 63 || label.startsWith('-') || label.endsWith('-')) return null;
    for (let i = 0; i < label.length; i += 1) if (!isDomainChar(label.charCodeAt(i))) return null;
  }
  const parsed = parseDomain(domain);
  if (parsed.isIcann !== true || !parsed.domain || parsed.domain === parsed.publicSuffix) return null;
  if (PLACEHOLDER_DOMAINS.has(parsed.domain) || /^\d+$/.test(parsed.publicSuffix ?? '')) return null;
  return `${local.toLowerCase()}@${domain}`;
}

/** Every address written plainly in `text`, in order, each once (see the file comment for the bounds). */
export function scanEmails(text: string): string[] {
  const found = new Set<string>();
  for (let at = text.indexOf('@'); at >= 0; at = text.indexOf('@', at + 1)) {
    let start = at;
    while (start > 0 && at - start < MAX_LOCAL && isLocalChar(text.charCodeAt(start - 1))) start -= 1;
    while (start < at && text.charCodeAt(start) === 46) start += 1;
    let end = at + 1;
    while (end < text.length && end - at - 1 < MAX_DOMAIN && isDomainChar(text.charCodeAt(end))) end += 1;
    while (end > at + 1 && (text.charCodeAt(end - 1) === 46 || text.charCodeAt(end - 1) === 45)) end -= 1;
    if (start === at || end === at + 1) continue;
    const email = validEmail(text.slice(start, end));
    if (email) found.add(email);
  }
  return [...found];
}

const AT_WORDS = new Set(['at', '@', 'ät', 'arroba', 'chez']);
const DOT_WORDS = new Set(['dot', '.', 'punkt', 'punto', 'point']);

const OPEN_TO_CLOSE: Readonly<Record<number, string>> = { 91: ']', 40: ')', 123: '}', 60: '>' };
const isBlank = (c: number): boolean => c === 32 || c === 0xa0;

/**
 * The text with bracketed tokens made plain: `[at]`, `(at)`, `{at}`, `<at>`, `[@]` (and the
 * same with spaces inside, any case) become `@`, the `dot` ones `.`, and the spaces around
 * them go. One pass, copying the text between tokens in slices; each bracket looks at most
 * OBFUSCATION_WINDOW characters ahead.
 */
function unbracket(text: string): string {
  let out = '';
  let last = 0;
  for (let i = 0; i < text.length; i += 1) {
    const close = OPEN_TO_CLOSE[text.charCodeAt(i)];
    if (!close) continue;
    const end = text.slice(i + 1, i + 2 + OBFUSCATION_WINDOW).indexOf(close);
    if (end < 0) continue;
    const word = text.slice(i + 1, i + 1 + end).trim().toLowerCase();
    const plain = AT_WORDS.has(word) ? '@' : DOT_WORDS.has(word) ? '.' : null;
    if (!plain) continue;
    let keep = i;
    while (keep > last && isBlank(text.charCodeAt(keep - 1))) keep -= 1;
    out += text.slice(last, keep) + plain;
    let next = i + end + 2;
    while (next < text.length && isBlank(text.charCodeAt(next))) next += 1;
    last = next;
    i = next - 1;
  }
  return last === 0 ? text : out + text.slice(last);
}

const isSpace = (c: number): boolean => c === 32 || c === 9 || c === 10 || c === 13 || c === 0xa0;

/** The word of `text` starting at `from` (up to a space, at most 63 characters): its end. */
function wordEnd(text: string, from: number): number {
  let end = from;
  while (end < text.length && end - from < 63 && !isSpace(text.charCodeAt(end))) end += 1;
  return end;
}

/**
 * The bare words `name at domain dot com`: where ` at ` is followed by a word and then at least
 * one ` dot ` and a word, the run is joined into an address (`at` with no `dot` is prose:
 * `look at google.com`). Each ` at ` looks at a bounded window; text between is copied in slices.
 */
function unword(text: string): string {
  const lower = text.toLowerCase();
  if (!lower.includes(' at ') || !lower.includes(' dot ')) return text;
  let out = '';
  let last = 0;
  for (let at = lower.indexOf(' at '); at >= 0; at = lower.indexOf(' at ', Math.max(at + 1, last))) {
    let start = at;
    while (start > last && at - start < 64 && !isSpace(text.charCodeAt(start - 1))) start -= 1;
    const domainStart = at + 4;
    const domainEnd = wordEnd(text, domainStart);
    if (start === at || domainEnd === domainStart) continue;
    let domain = text.slice(domainStart, domainEnd);
    let end = domainEnd;
    let dots = 0;
    while (dots < 4 && lower.startsWith(' dot ', end)) {
      const labelEnd = wordEnd(text, end + 5);
      if (labelEnd === end + 5) break;
      domain += `.${text.slice(end + 5, labelEnd)}`;
      end = labelEnd;
      dots += 1;
    }
    if (!dots) continue;
    out += `${text.slice(last, at)}@${domain}`;
    last = end;
  }
  return out + text.slice(last);
}

/** Text with the obfuscations of the file comment undone, for `scanEmails`. */
export function deobfuscate(text: string): string {
  return unword(unbracket(text));
}

/** Cloudflare's `data-cfemail` hex: the first byte is the key; each other byte XOR the key is a character. */
export function decodeCfEmail(hex: string): string | null {
  const clean = hex.trim();
  if (clean.length < 4 || clean.length % 2 !== 0 || clean.length > 2 * (MAX_LOCAL + MAX_DOMAIN + 2) || !/^[0-9a-fA-F]+$/.test(clean)) return null;
  const key = parseInt(clean.slice(0, 2), 16);
  let out = '';
  for (let i = 2; i < clean.length; i += 2) out += String.fromCharCode(parseInt(clean.slice(i, i + 2), 16) ^ key);
  return out;
}

const reverse = (text: string): string => Array.from(text).reverse().join('');

function mailtoAddresses(href: string): string[] {
  let rest = href.slice(href.indexOf(':') + 1);
  const q = rest.indexOf('?');
  if (q >= 0) rest = rest.slice(0, q);
  try {
    rest = decodeURIComponent(rest);
  } catch {
    // Kept as written.
  }
  return rest.split(/[,;]/).map((part) => validEmail(part.trim())).filter((e): e is string => e !== null);
}

/** Whether the element's inline style turns its text round (`direction: rtl` with `unicode-bidi: bidi-override`). */
function reversedByStyle(el: Element): boolean {
  const style = (el.attribs.style ?? '').toLowerCase().replace(/\s+/g, '');
  return style.includes('direction:rtl') && style.includes('bidi-override');
}

/** Words of a credit for the site's makers (`Webdesign: Pixelwerk, studio@pixelwerk.de`): an address on such a line is theirs. */
const CREDIT_WORDS = [
  'webdesign', 'web design', 'design by', 'designed by', 'website by', 'site by', 'made by', 'created by', 'developed by', 'powered by', 'built by',
  'realisation', 'realisierung', 'realisiert', 'umsetzung', 'konzept und design', 'gestaltung', 'programmierung', 'agentur', 'agency', 'hosting',
  'realisation', 'réalisation', 'conception', 'création du site', 'diseño web', 'desarrollo web', 'realizzazione', 'sviluppo', 'webontwerp', 'ontwerp',
];

/** Whether a line credits the site's makers (CREDIT_WORDS). */
export function isCreditLine(line: string): boolean {
  const lower = line.slice(0, 400).toLowerCase();
  return CREDIT_WORDS.some((w) => lower.includes(w));
}

/**
 * The addresses of the lines of `text` that credit the site's makers, and of `mailto:` links
 * whose block says so: an agency's, not the company's (the caller drops those at other domains).
 */
export function creditEmails($: CheerioAPI, text: string): Set<string> {
  const out = new Set<string>();
  for (const line of text.split('\n')) if (isCreditLine(line)) scanEmails(deobfuscate(line)).forEach((e) => out.add(e));
  $('a[href^="mailto:"], a[href^="MAILTO:"]').each((_, el) => {
    const block = $(el).closest('p, li, div, td, footer, section, address');
    if (isCreditLine((block.length ? block : $(el).parent()).text())) mailtoAddresses((el as Element).attribs.href ?? '').forEach((e) => out.add(e));
  });
  return out;
}

/**
 * The addresses a page holds (the file comment's places), each once, in the order found:
 * `mailto:` links first, then the hidden forms, then the text.
 */
export function pageEmails($: CheerioAPI, text: string): string[] {
  const out = new Set<string>();
  const add = (email: string | null) => {
    if (email) out.add(email);
  };
  $('a[href]').each((_, el) => {
    const href = (el.attribs.href ?? '').trim();
    if (href.slice(0, 7).toLowerCase() === 'mailto:') mailtoAddresses(href).forEach(add);
    const cf = href.indexOf('/cdn-cgi/l/email-protection#');
    if (cf >= 0) add(validEmail(decodeCfEmail(href.slice(cf + 28)) ?? ''));
  });
  $('[data-cfemail]').each((_, el) => add(validEmail(decodeCfEmail((el as Element).attribs['data-cfemail'] ?? '') ?? '')));
  $('[data-email], [data-mail]').each((_, el) => {
    const raw = ((el as Element).attribs['data-email'] ?? (el as Element).attribs['data-mail'] ?? '').trim();
    add(validEmail(raw) ?? validEmail(reverse(raw)));
  });
  $('[data-domain]').each((_, el) => {
    const attrs = (el as Element).attribs;
    const user = (attrs['data-user'] ?? attrs['data-name'] ?? '').trim();
    const tld = (attrs['data-tld'] ?? '').trim().replace(/^\./, '');
    const domain = (attrs['data-domain'] ?? '').trim();
    if (user && domain) add(validEmail(`${user}@${domain}${tld ? `.${tld}` : ''}`));
  });
  $('[style]').each((_, el) => {
    if (reversedByStyle(el as Element)) scanEmails(reverse($(el).text())).forEach(add);
  });
  scanEmails(deobfuscate(text)).forEach(add);
  return [...out];
}
