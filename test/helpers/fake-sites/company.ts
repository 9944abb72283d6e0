/**
 * Company web sites whose truth the fixtures know, for the company reader's tests and
 * bench/company.ts: each is a route table for startFakeSite and the contacts a careful human
 * reader would list from its pages (emails, phones as their key digits, social profiles,
 * the postal address, and a few details).
 *
 * Each site hides something the way real sites do (an imprint in German, `[at]`/`[dot]`
 * words, Cloudflare's `data-cfemail`, `&#64;` entities, text reversed by CSS, `data-user` +
 * `data-domain`, JSON-LD, microdata, pages only the sitemap names) and carries noise a naive
 * reader would take (fax numbers, dates, order and register numbers, prices, `logo@2x.png`,
 * form placeholders such as `you@example.com`, share buttons). The truth never lists noise.
 */
import { decodeCfEmail } from '../../../pipeline/intel/site/emails.js';
import { html, jsonLd, page, text, xml, type FakeAnswer, type Routes } from './server.js';

export interface CompanyTruth {
  readonly name: string;
  readonly emails: readonly string[];
  /** `phoneKey` of each number: `+4930123456`, or national digits. */
  readonly phones: readonly string[];
  readonly socials: readonly string[];
  readonly linkedin: string | null;
  readonly address: { readonly street: string; readonly postalCode: string; readonly locality: string } | null;
  readonly foundingYear: number | null;
  readonly contactForm: boolean;
}

export interface CompanyFixture {
  readonly label: string;
  readonly routes: Routes;
  readonly truth: CompanyTruth;
}

/** Cloudflare's protection of an address: a key byte, then each character XOR the key, in hex. */
export function cfEncode(email: string, key = 0x5a): string {
  const hex = (n: number) => n.toString(16).padStart(2, '0');
  const out = hex(key) + [...email].map((c) => hex(c.charCodeAt(0) ^ key)).join('');
  if (decodeCfEmail(out) !== email) throw new Error('cfEncode is not decodeCfEmail\'s inverse');
  return out;
}

const reversed = (s: string) => [...s].reverse().join('');

function table(map: Record<string, string | (() => FakeAnswer)>): Routes {
  return (path) => {
    const hit = map[path];
    if (hit === undefined) return null;
    return typeof hit === 'string' ? html(hit) : hit();
  };
}

const NOISE_FOOTER = `<footer><p>© 2019–2024 · Version 3.2.1 · Order hotline opens 08.00–18.00</p>
<p>Build 2024-05-12 · <img src="/img/logo@2x.png" alt="" srcset="/img/logo@2x.png 2x"></p>
<a href="https://www.facebook.com/sharer/sharer.php?u=x">Share</a> <a href="https://twitter.com/intent/tweet?text=x">Tweet</a></footer>`;

/** A German engineering firm: links in German, imprint with `[at]`/`[dot]`, Cloudflare-protected sales address, fax noise. */
export function germanImprint(): CompanyFixture {
  const home = page(
    'Muster Maschinenbau – Präzision seit 1998',
    `<header><img class="site-logo" src="/img/muster-logo.svg" alt="Muster Maschinenbau"><nav>
      <a href="/">Start</a> <a href="/ueber-uns">Über uns</a> <a href="/kontakt">Kontakt</a> <a href="/impressum">Impressum</a> <a href="/datenschutz">Datenschutz</a></nav></header>
     <main><h1>Präzisionsteile aus Berlin</h1><p>Wir fertigen Drehteile in Losgrößen ab 1 Stück. Preise ab 19,90 € netto.</p></main>
     <footer><a href="https://www.linkedin.com/company/muster-maschinenbau/">LinkedIn</a> <a href="https://www.xing.com/pages/muster-maschinenbau">XING</a>
      <a href="https://www.facebook.com/sharer/sharer.php?u=https://muster.de">Teilen</a></footer>${NOISE_FOOTER}`,
    '<meta name="description" content="Präzisionsdrehteile und Baugruppen aus Berlin.">',
  );
  const imprint = page(
    'Impressum – Muster Maschinenbau',
    `<h1>Impressum</h1><p>Angaben gemäß § 5 TMG</p>
     <p>Muster Maschinenbau GmbH<br>Musterstraße 12<br>10115 Berlin<br>Deutschland</p>
     <p>Telefon: +49 (0)30 1234567<br>Telefax: +49 (0)30 1234568<br>E-Mail: info [at] muster-maschinenbau [dot] de</p>
     <p>Geschäftsführer: Max Muster<br>Registergericht: Amtsgericht Charlottenburg, HRB 123456 B<br>USt-IdNr.: DE 123456789</p>
     <p>Stand: 01.03.2024</p>`,
  );
  const contact = page(
    'Kontakt',
    `<h1>Kontakt</h1><p>Vertrieb: <a href="/cdn-cgi/l/email-protection#${cfEncode('vertrieb@muster-maschinenbau.de')}"><span class="__cf_email__" data-cfemail="${cfEncode('vertrieb@muster-maschinenbau.de')}">[email&#160;protected]</span></a></p>
     <p>Service-Hotline: <a href="tel:+4930123456789">030 123 456 789</a></p>
     <form action="/kontakt/senden" method="post"><input name="name"><input type="email" name="email" placeholder="ihre@email.de"><textarea name="nachricht"></textarea><button>Senden</button></form>`,
  );
  const about = page('Über uns', '<h1>Über uns</h1><p>Das Unternehmen wurde 1998 gegründet und ist seit 2005 in Berlin. Gegründet 1998 von Max Muster, beschäftigen wir heute über 120 Mitarbeiter.</p>');
  return {
    label: 'de-imprint',
    routes: table({ '/': home, '/impressum': imprint, '/kontakt': contact, '/ueber-uns': about, '/datenschutz': page('Datenschutz', '<p>Datenschutz: datenschutz@muster-maschinenbau.de</p>') }),
    truth: {
      name: 'Muster Maschinenbau GmbH',
      emails: ['info@muster-maschinenbau.de', 'vertrieb@muster-maschinenbau.de'],
      phones: ['+49301234567', '+4930123456789'],
      socials: ['https://linkedin.com/company/muster-maschinenbau', 'https://xing.com/pages/muster-maschinenbau'],
      linkedin: 'https://linkedin.com/company/muster-maschinenbau',
      address: { street: 'Musterstraße 12', postalCode: '10115', locality: 'Berlin' },
      foundingYear: 1998,
      contactForm: true,
    },
  };
}

/** A software company with complete Organization JSON-LD; a reversed address on its contact page. */
export function jsonLdOrganization(): CompanyFixture {
  const org = {
    '@context': 'https://schema.org',
    '@type': 'Organization',
    name: 'Northwind Analytics Ltd',
    url: 'https://northwind-analytics.co.uk',
    logo: 'https://northwind-analytics.co.uk/logo.png',
    description: 'Forecasting software for retailers.',
    telephone: '+44 20 7946 0958',
    foundingDate: '2012-04-01',
    numberOfEmployees: { '@type': 'QuantitativeValue', value: 85 },
    address: { '@type': 'PostalAddress', streetAddress: '221 Baker Street', postalCode: 'NW1 6XE', addressLocality: 'London', addressCountry: 'GB' },
    sameAs: ['https://www.linkedin.com/company/northwind-analytics', 'https://x.com/NorthwindHQ', 'https://www.instagram.com/northwind.analytics/'],
  };
  const home = page(
    'Northwind Analytics | Forecasting for retail',
    `<nav><a href="/about">About</a> <a href="/contact-us">Contact us</a></nav><main><h1>Forecasts your buyers trust</h1>
     <p>Plans from £49/month. Over 3,000,000 forecasts a day. Call sales: +44 20 7946 0958.</p>
     <form role="search" action="/search"><input type="search" name="q"><textarea name="advanced"></textarea></form></main>${NOISE_FOOTER}`,
    jsonLd(org),
  );
  const contact = page(
    'Contact us',
    `<h1>Contact us</h1><p>Support: <span style="unicode-bidi: bidi-override; direction: rtl;">${reversed('support@northwind-analytics.co.uk')}</span></p>
     <p>Press: <a href="mailto:press@northwind-analytics.co.uk?subject=Press%20enquiry">press@northwind-analytics.co.uk</a></p>
     <form action="https://northwind-analytics.co.uk/api/contact"><input name="email" placeholder="you@example.com"><textarea name="message"></textarea></form>`,
  );
  const about = page('About', '<h1>About</h1><p>Founded in 2012, our team of 85 builds forecasting tools. Ticket #20240512 closed on 12/05/2024.</p>');
  return {
    label: 'json-ld',
    routes: table({ '/': home, '/contact-us': contact, '/about': about }),
    truth: {
      name: 'Northwind Analytics Ltd',
      emails: ['support@northwind-analytics.co.uk', 'press@northwind-analytics.co.uk'],
      phones: ['+442079460958'],
      socials: ['https://linkedin.com/company/northwind-analytics', 'https://x.com/northwindhq', 'https://instagram.com/northwind.analytics'],
      linkedin: 'https://linkedin.com/company/northwind-analytics',
      address: { street: '221 Baker Street', postalCode: 'NW1 6XE', locality: 'London' },
      foundingYear: 2012,
      contactForm: true,
    },
  };
}

/** A French bakery chain: microdata LocalBusiness on the home page, `mentions-legales`, `data-user`/`data-domain`. */
export function frenchMicrodata(): CompanyFixture {
  const home = page(
    'Boulangerie Dupont',
    `<div itemscope itemtype="https://schema.org/Bakery"><h1 itemprop="name">Boulangerie Dupont</h1>
      <div itemprop="address" itemscope itemtype="https://schema.org/PostalAddress"><span itemprop="streetAddress">12 rue de la Paix</span>,
      <span itemprop="postalCode">75002</span> <span itemprop="addressLocality">Paris</span></div>
      Tél. <span itemprop="telephone">01 42 60 00 00</span></div>
     <nav><a href="/a-propos">À propos</a> <a href="/contactez-nous">Contactez-nous</a> <a href="/mentions-legales">Mentions légales</a></nav>
     <p>Baguette 1,20 € — ouvert 7j/7 de 7h à 20h.</p>
     <a href="https://www.instagram.com/boulangerie.dupont">Instagram</a> <a href="https://www.facebook.com/boulangeriedupont">Facebook</a>`,
  );
  const legal = page(
    'Mentions légales',
    `<h1>Mentions légales</h1><p>Boulangerie Dupont SARL<br>12 rue de la Paix<br>75002 Paris</p><p>Capital social : 10 000 €. RCS Paris 123 456 789. SIRET 123 456 789 00012.</p>
     <p>Téléphone : 01 42 60 00 00 — Fax : 01 42 60 00 01</p><p>Directeur de la publication : Jean Dupont</p>`,
  );
  const contact = page(
    'Contactez-nous',
    `<h1>Contactez-nous</h1><p>Écrivez-nous : <a class="js-mail" data-user="bonjour" data-domain="boulangerie-dupont.fr" href="#">cliquez ici</a></p>
     <p>Commandes : commandes&#64;boulangerie-dupont&#46;fr</p>`,
  );
  const about = page('À propos', '<h1>À propos</h1><p>Fondée en 1987, la maison compte 40 employés.</p>');
  return {
    label: 'fr-microdata',
    routes: table({ '/': home, '/mentions-legales': legal, '/contactez-nous': contact, '/a-propos': about }),
    truth: {
      name: 'Boulangerie Dupont',
      emails: ['bonjour@boulangerie-dupont.fr', 'commandes@boulangerie-dupont.fr'],
      phones: ['0142600000'],
      socials: ['https://instagram.com/boulangerie.dupont', 'https://facebook.com/boulangeriedupont'],
      linkedin: null,
      address: { street: '12 rue de la Paix', postalCode: '75002', locality: 'Paris' },
      foundingYear: 1987,
      contactForm: false,
    },
  };
}

/** A US plumbing firm: a plain `Phone:` label, a US address, `(at)` email, a sitemap that lists the pages the home page does not link. */
export function usSitemapOnly(): CompanyFixture {
  const home = page(
    'Home - Reliable Plumbing Co.',
    `<h1>Reliable Plumbing Co.</h1><p>Emergency service 24/7. Call (555) 010-0199 now! Serving since 1975.</p>
     <p>Licensed, bonded, insured. License #PL-2019-00421. $49 inspection.</p>
     <a href="https://www.youtube.com/watch?v=abc123">Watch our video</a> <a href="https://www.facebook.com/ReliablePlumbingCo">Find us on Facebook</a>`,
  );
  const sitemap = `<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
    <url><loc>ORIGIN/</loc></url><url><loc>ORIGIN/about-us/</loc></url><url><loc>ORIGIN/contact/</loc></url><url><loc>ORIGIN/services/drains/</loc></url></urlset>`;
  const contact = page(
    'Contact',
    `<h1>Contact</h1><address>Reliable Plumbing Co.<br>4821 Oak Avenue<br>Springfield, IL 62704</address>
     <p>Phone: (555) 010-0199<br>Fax: (555) 010-0198<br>Email: office(at)reliableplumbing.com</p>
     <iframe src="https://form.jotform.com/123456789"></iframe>`,
  );
  const about = page('About Us', '<h1>About us</h1><p>Family owned since 1975. Our team of 14 licensed plumbers serves the county.</p>');
  return {
    label: 'us-sitemap',
    routes: (path, _q, origin) => {
      if (path === '/sitemap.xml') return xml(sitemap.replaceAll('ORIGIN', origin));
      if (path === '/robots.txt') return text('User-agent: *\nDisallow:\n');
      return table({ '/': home, '/about-us/': about, '/contact/': contact })(path, _q, origin);
    },
    truth: {
      name: 'Reliable Plumbing Co.',
      emails: ['office@reliableplumbing.com'],
      phones: ['5550100199'],
      socials: ['https://facebook.com/reliableplumbingco'],
      linkedin: null,
      address: { street: '4821 Oak Avenue', postalCode: '62704', locality: 'Springfield' },
      foundingYear: 1975,
      contactForm: true,
    },
  };
}

/** A Spanish agency: `aviso-legal`, entities, a `contacto` page with a WhatsApp-style mobile, and an email in a `mailto:` with an encoded `@`. */
export function spanishAvisoLegal(): CompanyFixture {
  const home = page(
    'Agencia Sol | Marketing digital',
    `<nav><a href="/sobre-nosotros">Sobre nosotros</a> <a href="/contacto">Contacto</a> <a href="/aviso-legal">Aviso legal</a></nav>
     <h1>Marketing que funciona</h1><p>Más de 200 clientes desde 2010. Precio desde 299 €/mes.</p>
     <a href="https://www.linkedin.com/company/agencia-sol">LinkedIn</a> <a href="https://www.tiktok.com/@agenciasol">TikTok</a>`,
  );
  const legal = page(
    'Aviso legal',
    `<h1>Aviso legal</h1><p>Agencia Sol S.L.<br>Calle Mayor 5, 28013 Madrid</p><p>CIF: B12345678. Inscrita en el Registro Mercantil de Madrid, Tomo 1234, Folio 56.</p>
     <p>Teléfono: +34 910 000 000</p><p>Correo: <a href="mailto:hola%40agenciasol.es">hola&#64;agenciasol.es</a></p>`,
  );
  const contact = page(
    'Contacto',
    `<h1>Contacto</h1><p>Móvil: <a href="tel:+34600000000">+34 600 000 000</a></p><p>Empleo: empleo &#91;at&#93; agenciasol &#91;dot&#93; es</p>
     <form action="/enviar"><input name="nombre"><textarea name="mensaje"></textarea></form>`,
  );
  const about = page('Sobre nosotros', '<h1>Sobre nosotros</h1><p>Fundada en 2010 en Madrid; hoy somos 25 empleados.</p>');
  return {
    label: 'es-aviso-legal',
    routes: table({ '/': home, '/aviso-legal': legal, '/contacto': contact, '/sobre-nosotros': about }),
    truth: {
      name: 'Agencia Sol S.L.',
      emails: ['hola@agenciasol.es', 'empleo@agenciasol.es'],
      phones: ['+34910000000', '+34600000000'],
      socials: ['https://linkedin.com/company/agencia-sol', 'https://tiktok.com/@agenciasol'],
      linkedin: 'https://linkedin.com/company/agencia-sol',
      address: { street: 'Calle Mayor 5', postalCode: '28013', locality: 'Madrid' },
      foundingYear: 2010,
      contactForm: true,
    },
  };
}

/** An Italian winery: `chi-siamo`, `contatti`, `note-legali`, email as `name at domain dot it` words, P.IVA and REA numbers as noise. */
export function italianWinery(): CompanyFixture {
  const home = page(
    'Cantina Rossi',
    `<nav><a href="/chi-siamo">Chi siamo</a> <a href="/contatti">Contatti</a> <a href="/note-legali">Note legali</a></nav>
     <h1>Vini dal 1923</h1><p>Vendemmia 2023: 45.000 bottiglie. Prezzo 12,50 €.</p><p>P.IVA 01234567890 · REA VR-123456</p>
     <a href="https://www.instagram.com/p/XYZ123/">Latest post</a> <a href="https://www.instagram.com/cantinarossi/">Instagram</a>`,
  );
  const legal = page('Note legali', '<h1>Note legali</h1><p>Cantina Rossi S.r.l.<br>Via Roma 10<br>37121 Verona</p><p>Tel. 045 800 0000</p>');
  const contact = page('Contatti', '<h1>Contatti</h1><p>Scrivici: info at cantinarossi dot it</p><p>Orari: 9-13 / 15-19</p>');
  const about = page('Chi siamo', '<h1>Chi siamo</h1><p>Fondata nel 1923 dalla famiglia Rossi.</p>');
  return {
    label: 'it-words',
    routes: table({ '/': home, '/note-legali': legal, '/contatti': contact, '/chi-siamo': about }),
    truth: {
      name: 'Cantina Rossi S.r.l.',
      emails: ['info@cantinarossi.it'],
      phones: ['0458000000'],
      socials: ['https://instagram.com/cantinarossi'],
      linkedin: null,
      address: { street: 'Via Roma 10', postalCode: '37121', locality: 'Verona' },
      foundingYear: 1923,
      contactForm: false,
    },
  };
}

/** A Dutch studio with its details in the footer of the home page only; a personal LinkedIn and a GitHub org. */
export function dutchFooterOnly(): CompanyFixture {
  const home = page(
    'Studio Vos – webdesign',
    `<h1>Studio Vos</h1><p>Websites sinds 2016. Offerte binnen 2 werkdagen. KvK 12345678, BTW NL001234567B01.</p>
     <footer><p>Studio Vos B.V.<br>Keizersgracht 100<br>1015 AA Amsterdam</p>
     <p>T +31 20 000 0000 · <a href="mailto:hallo@studiovos.nl">hallo@studiovos.nl</a></p>
     <a href="https://nl.linkedin.com/in/janvos">Jan Vos</a> <a href="https://github.com/studiovos">GitHub</a></footer>`,
  );
  return {
    label: 'nl-footer',
    routes: table({ '/': home }),
    truth: {
      name: 'Studio Vos B.V.',
      emails: ['hallo@studiovos.nl'],
      phones: ['+31200000000'],
      socials: ['https://linkedin.com/in/janvos', 'https://github.com/studiovos'],
      linkedin: 'https://linkedin.com/in/janvos',
      address: { street: 'Keizersgracht 100', postalCode: '1015 AA', locality: 'Amsterdam' },
      foundingYear: 2016,
      contactForm: false,
    },
  };
}

/** The company sites bench/company.ts measures and the tests read. */
export function companyFixtures(): CompanyFixture[] {
  return [germanImprint(), jsonLdOrganization(), frenchMicrodata(), usSitemapOnly(), spanishAvisoLegal(), italianWinery(), dutchFooterOnly()];
}
