/**
 * `address`, `email` and `telephone`: how a page says where and how to reach it.
 *
 * address — the text of an `<address>` element, else of an element whose class/id says
 * address/adresse (not an e-mail or IP address, not a form field), its lines joined with
 * ", ": lines that are only an e-mail, a phone number, a URL or a label ("Address:",
 * "Kontakt") are dropped first. Taken when what is left has a digit (a house number or
 * postcode), 3–40 words and at most 300 characters. Content before furniture: the page's
 * own address before a footer's, comments never.
 *
 * email — the first `mailto:` link with an address (share-by-mail links have none), else
 * the first e-mail written in an `<address>`, a contact-classed element or the footer
 * (found by scanning around each `@`, never by a regular expression over the whole text).
 *
 * telephone — the first `tel:` link with at least six digits, else a number labelled
 * Tel/Phone/Telefon/Téléphone/Teléfono/Telefono in the same places.
 */
import { linesOf, textOf } from './text.js';
import { type Node, type PageView, Ctx, FURNITURE, hinted, tagged } from './view.js';

export interface Contact {
  readonly address: string | null;
  readonly email: string | null;
  readonly telephone: string | null;
}

const NOT_ADDRESS_HINT = /e-?mail|ip-?address|mail-?address|web-?address|address-?bar/;
const FORM_TAGS = new Set(['input', 'label', 'form', 'select', 'textarea', 'option', 'button']);
const LABEL_LINE = /^(?:address|adresse|anschrift|dirección|direccion|indirizzo|adres|endereço|contact|kontakt|contacto|contatti|postanschrift|postal address|our address|visit us)\s?:?$/i;
const LABEL_PREFIX = /^(?:address|adresse|anschrift|dirección|direccion|indirizzo|adres|endereço|postanschrift)\s?:\s?/i;
const PHONE_LABEL = /(?:tel|tél|phone|telephone|telefon|téléphone|teléfono|telefono|fon|call us|mobile|mobil)\.?\s{0,2}:?\s{0,2}(\+?[\d(][\d\s()./-]{5,24}\d)/i;
const EMAIL_LOCAL = /[A-Za-z0-9._%+-]/;
const EMAIL_DOMAIN = /[A-Za-z0-9.-]/;

const digitsIn = (text: string): number => {
  let n = 0;
  for (const c of text) if (c >= '0' && c <= '9') n += 1;
  return n;
};

/** An e-mail written in `text`: scanned outwards from each `@` (linear). */
export function emailIn(text: string): string | null {
  for (let at = text.indexOf('@'); at >= 0; at = text.indexOf('@', at + 1)) {
    let start = at;
    while (start > 0 && at - start < 64 && EMAIL_LOCAL.test(text.charAt(start - 1))) start -= 1;
    let end = at + 1;
    while (end < text.length && end - at < 254 && EMAIL_DOMAIN.test(text.charAt(end))) end += 1;
    const candidate = text.slice(start, end).replace(/\.+$/, '');
    const domain = candidate.slice(candidate.indexOf('@') + 1);
    const tld = domain.slice(domain.lastIndexOf('.') + 1);
    if (start < at && domain.includes('.') && /^[A-Za-z]{2,24}$/.test(tld) && !domain.startsWith('.')) return candidate;
  }
  return null;
}

const isPhoneLine = (line: string): boolean => /^(?:[\p{L}.]{1,12}\s?:?\s?)?\+?[\d\s()./-]{6,40}$/u.test(line) && digitsIn(line) >= 6;
const isUrlLine = (line: string): boolean => /^(?:https?:\/\/|www\.)\S{1,300}$/i.test(line);

/** An address element's lines as one line, or null when it does not look postal. */
export function addressText(lines: readonly string[]): string | null {
  const kept = lines
    .map((l) => l.replace(LABEL_PREFIX, '').trim())
    .filter((l) => l && !LABEL_LINE.test(l) && !isPhoneLine(l) && !isUrlLine(l) && emailIn(l) !== l);
  const text = kept
    .join(',')
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean)
    .join(', ');
  const words = text.split(' ').length;
  if (!text || text.length > 300 || words < 3 || words > 40 || !digitsIn(text)) return null;
  return text;
}

/** Content first, then furniture; never comments. */
function byPlace(nodes: Iterable<Node>): Node[] {
  const list = [...nodes].filter((n) => !(n.ctx & (Ctx.Comments | Ctx.NoScript)));
  return [...list.filter((n) => !(n.ctx & FURNITURE)), ...list.filter((n) => n.ctx & FURNITURE)];
}

function readAddress(view: PageView): string | null {
  const hintedAddresses = [...hinted(view, 'address'), ...hinted(view, 'adresse')].filter(
    (n) => !NOT_ADDRESS_HINT.test(n.hint) && !FORM_TAGS.has(n.tag),
  );
  for (const node of [...byPlace(tagged(view, 'address')), ...byPlace(new Set(hintedAddresses))]) {
    const text = addressText(linesOf(node.el, 1000));
    if (text) return text;
  }
  return null;
}

function mailtoOf(node: Node): string | null {
  const href = node.el.attribs.href?.trim() ?? '';
  if (!/^mailto:/i.test(href)) return null;
  let address = href.slice(7).split('?')[0] ?? '';
  try {
    address = decodeURIComponent(address);
  } catch {
    return null;
  }
  return emailIn(address.split(',')[0]?.trim() ?? '');
}

function telOf(node: Node): string | null {
  const href = node.el.attribs.href?.trim() ?? '';
  if (!/^tel:/i.test(href)) return null;
  let number = href.slice(4);
  try {
    number = decodeURIComponent(number);
  } catch {
    return null;
  }
  number = number.replace(/[^\d+()./ -]/g, '').replace(/\s+/g, ' ').trim();
  return digitsIn(number) >= 6 ? number : null;
}

/** A link `mailtoOf` or `telOf` may read (most links are neither: one test says so). */
const CONTACT_LINK = /^\s*(?:mailto|tel):/i;

/** Places where a site writes its contact details. */
function contactPlaces(view: PageView): Node[] {
  return byPlace(new Set([...tagged(view, 'address'), ...hinted(view, 'contact'), ...tagged(view, 'footer')]));
}

export function readContact(view: PageView): Contact {
  const links = byPlace(tagged(view, 'a'));
  let email: string | null = null;
  let telephone: string | null = null;
  for (const link of links) {
    if (!CONTACT_LINK.test(link.el.attribs.href ?? '')) continue;
    email ??= mailtoOf(link);
    telephone ??= telOf(link);
    if (email && telephone) break;
  }
  if (!email || !telephone) {
    for (const place of contactPlaces(view)) {
      const text = textOf(place.el, 5000);
      email ??= emailIn(text);
      telephone ??= PHONE_LABEL.exec(text)?.[1]?.trim() ?? null;
      if (email && telephone) break;
    }
  }
  return { address: readAddress(view), email, telephone };
}
