/**
 * Generated company sites for bench/company.ts: many companies in six languages, each with its
 * truth, drawn from a seed. Where the hand-written sites of company.ts show one way of hiding
 * or writing each thing, these mix them: each site picks its language, its layout (pages
 * linked from the home page, pages only the sitemap names, everything in the footer, or
 * Organization JSON-LD), how each address is written or hidden, how each number is written,
 * which social profiles it links, and which noise it carries (fax numbers, dates, register
 * and tax numbers, IBANs, prices, ISBNs, order numbers, version strings, placeholders, share
 * buttons, `name@2x.png` file names, a sample address at example.com, an `F` fax line, the web
 * agency's credit with its own address). Some addresses are written by a script at run time,
 * which no reader of the served page can see: the truth lists them, so recall is below 1 by
 * design.
 */
import { seededRandom } from '../../../bench/seeded-random.js';
import { cfEncode, type CompanyFixture, type CompanyTruth } from './company.js';
import { html, jsonLd, page, text, xml, type Routes } from './server.js';

type Lang = 'de' | 'en' | 'fr' | 'es' | 'it' | 'nl';

interface Words {
  readonly tld: string;
  readonly form: string;
  readonly cc: string;
  readonly trunk: boolean;
  readonly streets: readonly string[];
  readonly cities: readonly (readonly [string, string])[];
  readonly about: readonly [string, string];
  readonly contact: readonly [string, string];
  readonly imprint: readonly [string, string];
  readonly phone: readonly string[];
  readonly fax: string;
  readonly email: string;
  readonly founded: string;
}

const LANGS: Readonly<Record<Lang, Words>> = {
  de: {
    tld: 'de', form: 'GmbH', cc: '49', trunk: true, streets: ['Lindenstraße', 'Hauptstraße', 'Bahnhofstraße', 'Gartenweg'],
    cities: [['10115', 'Berlin'], ['80331', 'München'], ['20095', 'Hamburg'], ['50667', 'Köln']],
    about: ['/ueber-uns', 'Über uns'], contact: ['/kontakt', 'Kontakt'], imprint: ['/impressum', 'Impressum'],
    phone: ['Telefon:', 'Tel.', 'Fon:', 'Telefon'], fax: 'Fax:', email: 'E-Mail:', founded: 'Gegründet',
  },
  en: {
    tld: 'com', form: 'Inc.', cc: '1', trunk: false, streets: ['Oak Avenue', 'Main Street', 'Maple Drive', 'Elm Road'],
    cities: [['62704', 'Springfield'], ['97201', 'Portland'], ['30301', 'Atlanta'], ['80202', 'Denver']],
    about: ['/about-us', 'About us'], contact: ['/contact', 'Contact'], imprint: ['/legal-notice', 'Legal notice'],
    phone: ['Phone:', 'Tel:', 'Call us:', 'Phone'], fax: 'Fax:', email: 'Email:', founded: 'Founded in',
  },
  fr: {
    tld: 'fr', form: 'SARL', cc: '33', trunk: true, streets: ['rue de la Paix', 'avenue Victor Hugo', 'rue du Commerce', 'boulevard Voltaire'],
    cities: [['75002', 'Paris'], ['69001', 'Lyon'], ['13001', 'Marseille'], ['33000', 'Bordeaux']],
    about: ['/a-propos', 'À propos'], contact: ['/contactez-nous', 'Contactez-nous'], imprint: ['/mentions-legales', 'Mentions légales'],
    phone: ['Téléphone :', 'Tél.', 'Tél :', 'Téléphone'], fax: 'Fax :', email: 'Courriel :', founded: 'Fondée en',
  },
  es: {
    tld: 'es', form: 'S.L.', cc: '34', trunk: false, streets: ['Calle Mayor', 'Calle de Alcalá', 'Avenida de América', 'Calle Real'],
    cities: [['28013', 'Madrid'], ['08002', 'Barcelona'], ['46001', 'Valencia'], ['41001', 'Sevilla']],
    about: ['/sobre-nosotros', 'Sobre nosotros'], contact: ['/contacto', 'Contacto'], imprint: ['/aviso-legal', 'Aviso legal'],
    phone: ['Teléfono:', 'Tel.', 'Tlf:', 'Teléfono'], fax: 'Fax:', email: 'Correo:', founded: 'Fundada en',
  },
  it: {
    tld: 'it', form: 'S.r.l.', cc: '39', trunk: false, streets: ['Via Roma', 'Via Garibaldi', 'Corso Italia', 'Via Dante'],
    cities: [['37121', 'Verona'], ['20121', 'Milano'], ['00184', 'Roma'], ['50123', 'Firenze']],
    about: ['/chi-siamo', 'Chi siamo'], contact: ['/contatti', 'Contatti'], imprint: ['/note-legali', 'Note legali'],
    phone: ['Telefono:', 'Tel.', 'Tel:', 'Telefono'], fax: 'Fax:', email: 'Email:', founded: 'Fondata nel',
  },
  nl: {
    tld: 'nl', form: 'B.V.', cc: '31', trunk: true, streets: ['Keizersgracht', 'Herengracht', 'Dorpsstraat', 'Kerkstraat'],
    cities: [['1015 AA', 'Amsterdam'], ['3011 AB', 'Rotterdam'], ['2511 BC', 'Den Haag'], ['3511 CD', 'Utrecht']],
    about: ['/over-ons', 'Over ons'], contact: ['/contact', 'Contact'], imprint: ['/colofon', 'Colofon'],
    phone: ['Telefoon:', 'Tel.', 'T', 'Telefoon'], fax: 'Fax:', email: 'E-mail:', founded: 'Opgericht in',
  },
};

const SYLLABLES = ['ka', 'lo', 'mi', 'ne', 'ru', 'ta', 'vo', 'zi', 'be', 'du', 'fa', 'go', 'ster', 'lin', 'mar', 'tek'];
const LOCALS = ['info', 'kontakt', 'sales', 'office', 'hello', 'service', 'jobs', 'support', 'presse', 'team'];
type Hiding = 'plain' | 'mailto' | 'brackets' | 'parens' | 'words' | 'cloudflare' | 'reversed' | 'data' | 'entities' | 'script';
/** `script`: written by a script at run time (`document.write`), which no reader of the served page sees: a miss every reader makes. */
const HIDINGS: readonly Hiding[] = ['plain', 'mailto', 'brackets', 'parens', 'words', 'cloudflare', 'reversed', 'data', 'entities', 'plain', 'mailto', 'script'];
type Layout = 'linked' | 'sitemap' | 'footer' | 'json-ld';
const LAYOUTS: readonly Layout[] = ['linked', 'sitemap', 'footer', 'json-ld'];

function hide(email: string, how: Hiding): string {
  const [local, domain] = email.split('@') as [string, string];
  switch (how) {
    case 'plain':
      return email;
    case 'mailto':
      return `<a href="mailto:${email}">Schreiben Sie uns</a>`;
    case 'brackets':
      return `${local} [at] ${domain.replaceAll('.', ' [dot] ')}`;
    case 'parens':
      return `${local}(at)${domain}`;
    case 'words':
      return `${local} at ${domain.replaceAll('.', ' dot ')}`;
    case 'cloudflare':
      return `<a href="/cdn-cgi/l/email-protection#${cfEncode(email)}"><span class="__cf_email__" data-cfemail="${cfEncode(email, 0x33)}">[email&#160;protected]</span></a>`;
    case 'reversed':
      return `<span style="unicode-bidi:bidi-override;direction:rtl">${[...email].reverse().join('')}</span>`;
    case 'data': {
      const dot = domain.lastIndexOf('.');
      return `<a href="#" class="mail" data-user="${local}" data-domain="${domain.slice(0, dot)}" data-tld="${domain.slice(dot + 1)}">E-Mail</a>`;
    }
    case 'entities':
      return `${local}&#64;${domain.replaceAll('.', '&#46;')}`;
    case 'script':
      return `<script>document.write('<a href="mailto:' + '${local}' + '&#64;' + '${domain}">' + '${local}' + '</a>');</script>`;
  }
}

const NOISE: readonly ((r: () => number) => string)[] = [
  () => '<p>Stand: 01.03.2024 · © 2015–2024 · Version 3.2.1</p>',
  (r) => `<p>HRB ${10000 + Math.floor(r() * 89999)} B · USt-IdNr. DE${100000000 + Math.floor(r() * 899999999)}</p>`,
  (r) => `<p>Preis ab ${(10 + r() * 90).toFixed(2).replace('.', ',')} € · Art.-Nr. ${4000 + Math.floor(r() * 999)}-${100 + Math.floor(r() * 899)}</p>`,
  () => '<p>ISBN 978-3-16-148410-0 · Öffnungszeiten 08.00–18.00</p>',
  () => '<p>Beispiel: max.mustermann@example.com · Download banner@2x.png</p>',
  () => '<form><input type="email" placeholder="name@ihre-firma.de"></form>',
  () => '<a href="https://www.facebook.com/sharer/sharer.php?u=x">Share</a> <a href="https://twitter.com/intent/tweet?text=x">Tweet</a> <a href="https://www.linkedin.com/shareArticle?url=x">Share</a>',
  () => '<img src="/img/logo@2x.png" srcset="/img/logo@3x.png 3x" alt="">',
  (r) => `<p>Bestellnummer ${Math.floor(r() * 1e8)} vom 12/05/2024</p>`,
  () => '<p>IBAN: DE89 3704 0044 0532 0130 00 · BIC: COBADEFFXXX · Steuernummer 12/345/67890</p>',
  () => '<p>Mo–Fr 9:00–18:00 Uhr, Sa 10–14 Uhr</p>',
];

interface Social {
  readonly href: string;
  readonly canonical: string;
}

function socialsFor(slug: string, r: () => number): Social[] {
  const all: Social[] = [
    { href: `https://www.linkedin.com/company/${slug}/`, canonical: `https://linkedin.com/company/${slug}` },
    { href: `https://twitter.com/${slug}`, canonical: `https://x.com/${slug}` },
    { href: `https://www.facebook.com/${slug}`, canonical: `https://facebook.com/${slug}` },
    { href: `https://www.instagram.com/${slug}/`, canonical: `https://instagram.com/${slug}` },
    { href: `https://www.youtube.com/channel/UC${slug}Xy`, canonical: `https://youtube.com/channel/UC${slug}Xy` },
    { href: `https://www.xing.com/pages/${slug}`, canonical: `https://xing.com/pages/${slug}` },
  ];
  return all.filter(() => r() < 0.4);
}

/** One generated company (see the file comment). */
function generate(index: number, r: () => number): CompanyFixture {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(r() * items.length)] as T;
  const lang = (['de', 'en', 'fr', 'es', 'it', 'nl'] as const)[index % 6] as Lang;
  const w = LANGS[lang];
  const brandRaw = Array.from({ length: 2 + Math.floor(r() * 2) }, () => pick(SYLLABLES)).join('');
  const brand = `${brandRaw[0]?.toUpperCase()}${brandRaw.slice(1)}`;
  const slug = `${brandRaw}${index}`;
  const domain = `${slug}.${w.tld}`;
  const name = `${brand} ${pick(['Technik', 'Design', 'Consulting', 'Logistik', 'Media'])} ${w.form}`;
  const [postalCode, locality] = pick(w.cities);
  const house = 1 + Math.floor(r() * 120);
  const streetName = pick(w.streets);
  const street = lang === 'en' || lang === 'fr' ? `${house} ${streetName}` : `${streetName} ${house}`;
  const postalLine = lang === 'en' ? `${locality}, IL ${postalCode}` : `${postalCode} ${locality}`;
  const digits = () => Array.from({ length: 7 }, () => Math.floor(r() * 10)).join('');
  const area = String(20 + Math.floor(r() * 70));
  const numbers = Array.from({ length: 1 + Math.floor(r() * 2) }, () => ({ area, local: digits() }));
  const written = numbers.map((n) => {
    const style = pick(['intl', 'trunk', 'national']);
    if (lang === 'en') return { text: `(555) ${n.local.slice(0, 3)}-${n.local.slice(3)}`, key: `555${n.local}` };
    if (style === 'national') return { text: `0${n.area} ${n.local}`, key: `0${n.area}${n.local}` };
    if (style === 'trunk' && w.trunk) return { text: `+${w.cc} (0)${n.area} ${n.local}`, key: `+${w.cc}${n.area}${n.local}` };
    return { text: `+${w.cc} ${n.area} ${n.local.slice(0, 3)} ${n.local.slice(3)}`, key: `+${w.cc}${n.area}${n.local}` };
  });
  const fax = lang === 'en' ? `(555) ${digits().slice(0, 3)}-${digits().slice(0, 4)}` : `+${w.cc} ${area} ${digits()}`;
  // Imprints credit the agency that built the site, with its own address: not the company's.
  const credit = r() < 0.5 ? `<p>${pick(['Webdesign', 'Design & Umsetzung', 'Website by', 'Realisation', 'Konzept und Design'])}: Pixelwerk Agentur, studio@pixelwerk${index}.de</p>` : '';
  const emails = [...new Set(Array.from({ length: 1 + Math.floor(r() * 3) }, () => `${pick(LOCALS)}@${domain}`))];
  const socials = socialsFor(slug, r);
  const layout = LAYOUTS[Math.floor(index / 6) % LAYOUTS.length] as Layout;
  const founded = 1950 + Math.floor(r() * 70);
  const noise = () => Array.from({ length: 3 }, () => pick(NOISE)(r)).join('\n');

  const addressHtml = `<p>${name}<br>${street}<br>${postalLine}</p>`;
  const phonesHtml = written.map((p, i) => (i === 0 && r() < 0.4 ? `<p>${pick(w.phone)} <a href="tel:${p.key.startsWith('+') ? p.key : p.key}">${p.text}</a></p>` : `<p>${pick(w.phone)} ${p.text}</p>`)).join('');
  const faxHtml = r() < 0.5 ? `<p>${w.fax} ${fax}</p>` : `<p>F ${fax.startsWith('+') ? fax : `+1 ${fax}`}</p>`;
  const emailsHtml = emails.map((e) => `<p>${w.email} ${hide(e, pick(HIDINGS))}</p>`).join('');
  const socialsHtml = socials.map((s) => `<a href="${s.href}">${s.canonical.split('/')[2]}</a>`).join(' ');
  const org =
    layout === 'json-ld'
      ? jsonLd({
          '@context': 'https://schema.org',
          '@type': 'Organization',
          name,
          url: `https://${domain}/`,
          telephone: written[0]?.text,
          address: { '@type': 'PostalAddress', streetAddress: street, postalCode, addressLocality: locality },
          sameAs: socials.map((s) => s.href),
          foundingDate: String(founded),
        })
      : '';
  const nav = layout === 'linked' || layout === 'json-ld' ? `<nav><a href="${w.about[0]}">${w.about[1]}</a> <a href="${w.contact[0]}">${w.contact[1]}</a> <a href="${w.imprint[0]}">${w.imprint[1]}</a></nav>` : '';
  const footer = layout === 'footer' ? `<footer>${addressHtml}${phonesHtml}${faxHtml}${emailsHtml}${credit}</footer>` : '';
  const home = page(`${brand} – ${pick(['Home', 'Startseite', 'Accueil', 'Inicio'])}`, `${nav}<main><h1>${brand}</h1><p>${w.founded} ${founded}.</p>${noise()}</main>${footer}<div class="social">${socialsHtml}</div>`, org);
  const imprint = page(w.imprint[1], `<h1>${w.imprint[1]}</h1>${addressHtml}${phonesHtml}${faxHtml}${noise()}${credit}`);
  const contact = page(w.contact[1], `<h1>${w.contact[1]}</h1>${emailsHtml}${noise()}<form action="/send"><input name="name"><textarea name="message"></textarea></form>`);
  const about = page(w.about[1], `<h1>${w.about[1]}</h1><p>${w.founded} ${founded}.</p>${noise()}`);
  const pages: Record<string, string> = layout === 'footer' ? { '/': home } : { '/': home, [w.imprint[0]]: imprint, [w.contact[0]]: contact, [w.about[0]]: about };

  const routes: Routes = (path, _q, origin) => {
    if (layout === 'sitemap' && path === '/sitemap.xml') {
      return xml(`<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${Object.keys(pages).map((p) => `<url><loc>${origin}${p}</loc></url>`).join('')}</urlset>`);
    }
    if (path === '/robots.txt') return text('User-agent: *\nDisallow:\n');
    const body = pages[path];
    return body === undefined ? null : html(body);
  };
  const truth: CompanyTruth = {
    name,
    emails,
    phones: written.map((p) => p.key),
    socials: socials.map((s) => s.canonical),
    linkedin: socials.find((s) => s.canonical.includes('linkedin'))?.canonical ?? null,
    address: { street, postalCode, locality },
    foundingYear: founded,
    contactForm: layout !== 'footer',
  };
  return { label: `gen-${index}-${lang}-${layout}`, routes, truth };
}

/** `count` generated companies from `seed` (the same seed, the same sites). */
export function generatedCompanies(count: number, seed = 30): CompanyFixture[] {
  const r = seededRandom(seed);
  return Array.from({ length: count }, (_, i) => generate(i, r));
}
