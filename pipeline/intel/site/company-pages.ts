/**
 * Which of a site's pages say who the company is: its about, contact and imprint (legal
 * notice) pages, told by their URL's path and their link's text, in the languages companies
 * write them in (English, German, French, Spanish, Italian, Portuguese, Dutch, Scandinavian,
 * Polish). A path segment names a kind when it is one of the kind's words, or starts with one
 * followed by `-`, `_` or `.` and a short tail (`kontakt.html`, `about-us`, `impressum_de`, not
 * `about-our-new-product`); a link's text when
 * it is one of the words (case and accents aside).
 */
import type { PageLink } from './html.js';

export type CompanyPageKind = 'about' | 'contact' | 'imprint';

const WORDS: Readonly<Record<CompanyPageKind, readonly string[]>> = {
  about: [
    'about', 'about-us', 'aboutus', 'about_us', 'company', 'who-we-are', 'our-story', 'our-company', 'team', 'our-team',
    'uber-uns', 'ueber-uns', 'uberuns', 'unternehmen', 'wir-uber-uns', 'firma',
    'a-propos', 'apropos', 'qui-sommes-nous', 'entreprise', 'societe',
    'sobre', 'sobre-nosotros', 'quienes-somos', 'empresa', 'nosotros', 'sobre-nos', 'quem-somos',
    'chi-siamo', 'azienda', 'chi-sono',
    'over-ons', 'wie-zijn-wij', 'om-oss', 'om-os', 'o-nas', 'o-firmie',
  ],
  contact: [
    'contact', 'contact-us', 'contactus', 'contact_us', 'contacts', 'get-in-touch', 'reach-us',
    'kontakt', 'kontaktformular', 'kontakt-aufnehmen', 'contactez-nous', 'nous-contacter', 'contacto', 'contactenos', 'contactanos',
    'contato', 'fale-conosco', 'contatti', 'contattaci', 'neem-contact-op', 'kontakta-oss', 'kontakt-oss', 'yhteystiedot',
  ],
  imprint: [
    'impressum', 'imprint', 'legal-notice', 'legal-notices', 'legalnotice', 'legal', 'site-notice', 'mentions-legales', 'mentions',
    'aviso-legal', 'informacion-legal', 'nota-legal', 'note-legali', 'colofon', 'kolofon', 'disclaimer', 'legal-information', 'corporate-information',
  ],
};

/** Link texts that name a kind (lower case, accents dropped). */
const TEXTS: Readonly<Record<CompanyPageKind, readonly string[]>> = {
  about: ['about', 'about us', 'who we are', 'our story', 'company', 'uber uns', 'unternehmen', 'a propos', 'qui sommes-nous', 'sobre nosotros', 'quienes somos', 'chi siamo', 'over ons', 'om oss', 'o nas', 'sobre nos', 'quem somos'],
  contact: ['contact', 'contact us', 'get in touch', 'kontakt', 'contactez-nous', 'nous contacter', 'contacto', 'contato', 'contatti', 'contattaci', 'neem contact op', 'kontakta oss'],
  imprint: ['impressum', 'imprint', 'legal notice', 'legal', 'site notice', 'mentions legales', 'aviso legal', 'note legali', 'colofon', 'legal information'],
};

const KINDS: readonly CompanyPageKind[] = ['imprint', 'contact', 'about'];

/** Lower case with accents and umlauts folded (`Über` → `uber`, `à` → `a`). */
export function fold(text: string): string {
  return text.normalize('NFD').replace(/[\u0300-\u036f]/g, '').toLowerCase();
}

/** A kind's word with a short tail (`about-us`, `impressum_de`, `kontakt.html`), not a slug that starts with it (`about-our-new-product`). */
const MAX_TAIL = 8;

function segmentNames(segment: string, words: readonly string[]): boolean {
  for (const word of words) {
    if (segment === word) return true;
    if (segment.startsWith(word) && segment.length - word.length <= MAX_TAIL) {
      const next = segment[word.length];
      if (next === '-' || next === '_' || next === '.') return true;
    }
  }
  return false;
}

/** The kind a URL's path names, or null. The last segments weigh: `/de/impressum` and `/impressum.html` are imprints, `/about/careers/` is not. */
export function kindOfPath(url: string): CompanyPageKind | null {
  let path: string;
  try {
    path = decodeURIComponent(new URL(url).pathname);
  } catch {
    return null;
  }
  const segments = fold(path).split('/').filter(Boolean);
  const last = segments[segments.length - 1];
  if (!last || segments.length > 3) return null;
  return KINDS.find((kind) => segmentNames(last, WORDS[kind])) ?? null;
}

/** The kind a link's text names, or null. */
export function kindOfText(text: string): CompanyPageKind | null {
  const t = fold(text).replace(/\s+/g, ' ').trim();
  if (!t || t.length > 40) return null;
  return KINDS.find((kind) => TEXTS[kind].includes(t)) ?? null;
}

export interface CompanyPage {
  readonly url: string;
  readonly kind: CompanyPageKind;
  /** Higher is a surer match: both path and text, then path, then text. */
  readonly score: number;
}

/** The about, contact and imprint pages `links` point to (on the site: the caller filters), best first per kind, each URL once. */
export function companyPages(links: readonly Pick<PageLink, 'href' | 'text'>[]): CompanyPage[] {
  const best = new Map<string, CompanyPage>();
  for (const link of links) {
    const byPath = kindOfPath(link.href);
    const byText = kindOfText(link.text);
    const kind = byPath ?? byText;
    if (!kind) continue;
    const score = (byPath === kind ? 2 : 0) + (byText === kind ? 1 : 0);
    const url = link.href.split('#')[0] as string;
    const known = best.get(url);
    if (!known || known.score < score) best.set(url, { url, kind, score });
  }
  return [...best.values()].sort((a, b) => b.score - a.score);
}
