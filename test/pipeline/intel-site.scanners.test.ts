/**
 * The site readers' scanners (pipeline/intel/site/): emails and their obfuscations, phones,
 * social profiles, company pages by path and text, facts stated in text, sitemaps, and the
 * parse caps. Each scanner is also run on adversarial megabytes, which a backtracking pattern
 * would take minutes over: they must stay linear.
 */
import { describe, expect, it } from 'vitest';
import { load } from 'cheerio';
import { decodeCfEmail, deobfuscate, pageEmails, scanEmails, validEmail } from '../../pipeline/intel/site/emails.js';
import { phoneKey, sameNumber, scanPhones, telNumber, validPhone } from '../../pipeline/intel/site/phones.js';
import { linkedinOf, socialProfile } from '../../pipeline/intel/site/socials.js';
import { companyPages, kindOfPath, kindOfText } from '../../pipeline/intel/site/company-pages.js';
import { addressFromText, foundingYear, headcountFromText, legalName } from '../../pipeline/intel/site/company-text.js';
import { parseSitemap, robotsSitemaps } from '../../pipeline/intel/site/sitemap.js';
import { parseJson, readableHtml, xmlDepthOver } from '../../pipeline/intel/site/read.js';
import { jsonDepthOver } from '../../pipeline/runtime/json-limits.js';
import { markupDepthOver } from '../../pipeline/runtime/markup-limits.js';
import { MAX_HTML_DEPTH, MAX_SITEMAP_URLS } from '../../pipeline/intel/site/limits.js';
import { visibleText } from '../../pipeline/intel/site/html.js';
import { fromMinorUnits, priceNumber } from '../../pipeline/intel/site/product.js';
import { parseAmount } from '../../pipeline/intel/site/things.js';
import { mergePosts, postKey } from '../../pipeline/intel/site/post.js';
import { cfEncode } from '../helpers/fake-sites/company.js';

describe('pipeline/intel/site emails', () => {
  it('validates: a public suffix, a sane local part, no placeholders or file names', () => {
    expect(validEmail('Info@Example-Shop.DE')).toBe('info@example-shop.de');
    for (const bad of ['logo@2x.png', 'user@localhost', 'a..b@x.com', '.a@x.com', 'you@example.com', 'a@b', 'a@-x.com', 'x@1.2.3.4', 'a@b@c.com']) expect(validEmail(bad), bad).toBeNull();
  });

  it('finds plain addresses in text, each once, and trims sentence punctuation', () => {
    expect(scanEmails('Mail sales@acme.io. Or SALES@acme.io, or x.y+z@sub.acme.co.uk!')).toEqual(['sales@acme.io', 'x.y+z@sub.acme.co.uk']);
  });

  it('undoes [at]/[dot], (at), {at}, <at>, [@], and the bare words `at` … `dot`', () => {
    expect(scanEmails(deobfuscate('info [at] acme [dot] com'))).toEqual(['info@acme.com']);
    expect(scanEmails(deobfuscate('info(at)acme(dot)co(dot)uk'))).toEqual(['info@acme.co.uk']);
    expect(scanEmails(deobfuscate('a {AT} acme {DOT} de; b <at> acme.de; c [@] acme.de'))).toEqual(['a@acme.de', 'b@acme.de', 'c@acme.de']);
    expect(scanEmails(deobfuscate('write to info at acme dot com today'))).toEqual(['info@acme.com']);
    // `at` without `dot` is prose, not an address.
    expect(scanEmails(deobfuscate('look at google.com for it'))).toEqual([]);
  });

  it('decodes Cloudflare data-cfemail, reversed text, data attributes and entities', () => {
    expect(decodeCfEmail(cfEncode('hi@acme.com'))).toBe('hi@acme.com');
    expect(decodeCfEmail('zz')).toBeNull();
    const $ = load(`<a href="/cdn-cgi/l/email-protection#${cfEncode('a@acme.com', 0x21)}">x</a><span data-cfemail="${cfEncode('b@acme.com')}"></span>
      <span style="direction: rtl; unicode-bidi: bidi-override">moc.emca@c</span><a data-user="d" data-domain="acme" data-tld="com">x</a>
      <span data-email="moc.emca@e"></span><a href="mailto:f%40acme.com,g@acme.com?subject=x">m</a><p>h&#64;acme&#46;com</p>`);
    expect(pageEmails($, $('p').text()).sort()).toEqual(['a@acme.com', 'b@acme.com', 'c@acme.com', 'd@acme.com', 'e@acme.com', 'f@acme.com', 'g@acme.com', 'h@acme.com']);
  });

  it('stays linear on hostile text: runs of @, of brackets, of address characters', () => {
    const hostile = ['@'.repeat(1_000_000), 'a'.repeat(500_000) + '@' + 'b.'.repeat(250_000), '['.repeat(1_000_000), '[at'.repeat(300_000), ' at '.repeat(200_000) + ' dot '.repeat(100_000), 'a@'.repeat(500_000)];
    // Each a megabyte or so: a backtracking pattern takes minutes over one (see the file's comment), so the test's own timeout is the bound.
    for (const text of hostile) expect(scanEmails(deobfuscate(text)), `${text.slice(0, 12)}…`).toEqual([]);
  });
});

describe('pipeline/intel/site phones', () => {
  it('takes labelled numbers in many languages, international ones unlabelled, never a fax', () => {
    const text = 'Tel.: +49 (0)30 1234567\nTelefax: +49 (0)30 1234568\nTéléphone : 01 42 60 00 00\nFax 01 42 60 00 01\nCall us +1 (555) 010-0199\nPhone\n(555) 010-0100';
    expect(scanPhones(text).map(phoneKey)).toEqual(['+49301234567', '0142600000', '+15550100199', '5550100100']);
  });

  it('leaves out dates, ranges, register numbers, prices and national numbers without a label', () => {
    expect(scanPhones('Stand 01.03.2024 · 2019-2024 · HRB 123456 B · USt-IdNr. DE 123456789 · 030 1234567 · € 1.299,00 · ISBN 978-3-16-148410-0')).toEqual([]);
  });

  it('reads tel: links and knows one number written two ways', () => {
    expect(telNumber('tel:123')).toBeNull();
    expect(telNumber('tel:+49%2030%20123')).toBe('+49 30 123');
    expect(telNumber('tel:+4930123456')).toBe('+4930123456');
    expect(validPhone('12345', true)).toBeNull();
    expect(sameNumber('+4930123456789', '030123456789')).toBe(true);
    expect(sameNumber('+4930123456789', '040123456789')).toBe(false);
  });

  it('stays linear on hostile text', () => {
    // Each a megabyte or so: a backtracking pattern takes minutes over one, so the test's own timeout is the bound.
    for (const text of ['1'.repeat(1_000_000), '+1 '.repeat(300_000), 'Tel '.repeat(250_000), '(0'.repeat(500_000)]) expect(scanPhones(text), `${text.slice(0, 12)}…`).toEqual([]);
  });
});

describe('pipeline/intel/site socials', () => {
  it('canonical profiles; shares, intents, posts and the networks\' own pages are none', () => {
    expect(socialProfile('https://www.linkedin.com/company/acme-gmbh/about/?x=1')).toEqual({ network: 'linkedin', url: 'https://linkedin.com/company/acme-gmbh' });
    expect(socialProfile('https://de.linkedin.com/in/jane')).toEqual({ network: 'linkedin', url: 'https://linkedin.com/in/jane' });
    expect(socialProfile('https://twitter.com/Acme/status/123')).toEqual({ network: 'x', url: 'https://x.com/acme' });
    expect(socialProfile('https://www.youtube.com/channel/UCabcDEF')).toEqual({ network: 'youtube', url: 'https://youtube.com/channel/UCabcDEF' });
    for (const none of ['https://www.facebook.com/sharer/sharer.php?u=x', 'https://twitter.com/intent/tweet', 'https://www.linkedin.com/shareArticle?url=x', 'https://www.instagram.com/p/abc/', 'https://www.youtube.com/watch?v=x', 'https://example.com/linkedin', 'https://github.com/login']) {
      expect(socialProfile(none), none).toBeNull();
    }
    expect(linkedinOf([{ network: 'linkedin', url: 'https://linkedin.com/in/jane' }, { network: 'linkedin', url: 'https://linkedin.com/company/acme' }])).toBe('https://linkedin.com/company/acme');
  });
});

describe('pipeline/intel/site company pages and facts', () => {
  it('tells about, contact and imprint pages by path and link text, in several languages', () => {
    expect(['/impressum', '/de/impressum.html', '/mentions-legales/', '/aviso-legal', '/note-legali'].map((p) => kindOfPath(`https://x.de${p}`))).toEqual(['imprint', 'imprint', 'imprint', 'imprint', 'imprint']);
    expect(['/über-uns', '/ueber-uns/', '/a-propos', '/chi-siamo', '/sobre-nosotros', '/about-us'].map((p) => kindOfPath(`https://x.de${encodeURI(p)}`))).toEqual(Array(6).fill('about'));
    expect(['/kontakt', '/contacto', '/contactez-nous', '/contact-us'].map((p) => kindOfPath(`https://x.de${p}`))).toEqual(Array(4).fill('contact'));
    expect(kindOfPath('https://x.de/blog/about-our-new-product')).toBeNull();
    expect(kindOfText('Über uns')).toBe('about');
    expect(companyPages([{ href: 'https://x.de/seite-7', text: 'Impressum' }, { href: 'https://x.de/impressum', text: 'Impressum' }])[0]).toEqual({ url: 'https://x.de/impressum', kind: 'imprint', score: 3 });
  });

  it('reads a legal name, an address, a founding year and a headcount from text', () => {
    expect(legalName('Angaben gemäß § 5 TMG\nMuster Maschinenbau GmbH\nMusterstraße 12')).toBe('Muster Maschinenbau GmbH');
    expect(legalName('We love what we do, and so does Acme Inc')).toBeNull();
    expect(addressFromText('Acme GmbH\nHauptstraße 5a\nD-80331 München\nDeutschland')).toMatchObject({ street: 'Hauptstraße 5a', postalCode: '80331', locality: 'München', country: 'Deutschland' });
    expect(addressFromText('Calle Mayor 5, 28013 Madrid, España')).toMatchObject({ street: 'Calle Mayor 5', postalCode: '28013', locality: 'Madrid' });
    expect(addressFromText('Acme Inc.\n100 Main Street\nSpringfield, IL 62704')).toMatchObject({ street: '100 Main Street', postalCode: '62704', locality: 'Springfield', region: 'IL' });
    expect(addressFromText('Opening hours 9-17\n2024 was a good year')).toBeNull();
    expect(foundingYear('Seit 2005 in Berlin. Gegründet 1998 von Max.', 2025)).toBe(1998);
    expect(foundingYear('Founded in 2090.', 2025)).toBeNull();
    expect(headcountFromText('Today over 120 Mitarbeiter work here.')).toMatchObject({ min: 120 });
    expect(headcountFromText('a team of 40 engineers')).toMatchObject({ min: 40, max: 40 });
    expect(headcountFromText('10-50 employees')).toMatchObject({ min: 10, max: 50 });
  });

  it('stays linear on hostile text', () => {
    const long = `${'1'.repeat(200_000)}\n${'Hauptstraße 1\n'.repeat(50_000)}${'gegründet '.repeat(50_000)}${'employees '.repeat(50_000)}`;
    // Nearly two million characters: a backtracking pattern takes minutes over them, so the test's own timeout is the bound.
    expect([addressFromText(long), foundingYear(long, 2025), headcountFromText(long), legalName(long)]).toEqual([null, null, null, null]);
  });
});

describe('pipeline/intel/site parsing within bounds', () => {
  it('reads sitemaps and indexes, and robots.txt Sitemap lines', () => {
    const set = parseSitemap('<?xml version="1.0"?><urlset><url><loc> https://x.com/a </loc><lastmod>2024-01-02</lastmod></url><url><loc>ftp://x.com/b</loc></url><url><loc>https://x.com/c?a=1&amp;b=2</loc></url></urlset>');
    expect(set.urls).toEqual([{ url: 'https://x.com/a', lastmod: '2024-01-02' }, { url: 'https://x.com/c?a=1&b=2', lastmod: null }]);
    expect(parseSitemap('<sitemapindex><sitemap><loc>https://x.com/s1.xml</loc></sitemap></sitemapindex>').sitemaps).toEqual(['https://x.com/s1.xml']);
    expect(robotsSitemaps('User-agent: *\nSITEMAP: https://x.com/s.xml\nsitemap:https://x.com/t.xml\n')).toEqual(['https://x.com/s.xml', 'https://x.com/t.xml']);
    // Full at MAX_SITEMAP_URLS: the rest of the file is not read (a sitemap listed after them included).
    const urls = Array.from({ length: MAX_SITEMAP_URLS + 10 }, (_, i) => `<url><loc>https://x.com/u/${i}</loc></url>`).join('');
    const full = parseSitemap(`<urlset>${urls}<sitemap><loc>https://x.com/late.xml</loc></sitemap></urlset>`);
    expect(full.urls).toHaveLength(MAX_SITEMAP_URLS);
    expect(full.sitemaps).toEqual([]);
  });

  it('refuses JSON and XML nested past the caps, without recursion', () => {
    expect(parseJson(`${'['.repeat(100_000)}${']'.repeat(100_000)}`)).toBeUndefined();
    expect(parseJson('{"products":[{"a":[1]}]}')).toEqual({ products: [{ a: [1] }] });
    // Over 512 KiB the text is scanned before it is parsed; below, the parsed value is walked: the same cap either way.
    expect(parseJson(`${'['.repeat(300_000)}${']'.repeat(300_000)}`)).toBeUndefined();
    const nested = (levels: number, pad: number) => `${'{"a":'.repeat(levels)}"${'x'.repeat(pad)}"${'}'.repeat(levels)}`;
    for (const pad of [10, 600_000]) {
      expect(parseJson(nested(49, pad))).toBeUndefined();
      expect(parseJson(nested(48, pad))).toBeDefined();
    }
    expect(parseJson('not json')).toBeUndefined();
    // Brackets inside strings (escaped quotes too) are text, not nesting.
    expect(parseJson(`{"a":"${'['.repeat(1_000)}\\"${'{'.repeat(1_000)}"}`)).toEqual({ a: `${'['.repeat(1_000)}"${'{'.repeat(1_000)}` });
    expect(jsonDepthOver(`${'{"a":'.repeat(49)}1${'}'.repeat(49)}`, 48)).toBe(true);
    expect(jsonDepthOver(`${'{"a":'.repeat(48)}1${'}'.repeat(48)}`, 48)).toBe(false);
    // A string ends at a quote after an even run of backslashes, not after an odd one.
    expect(jsonDepthOver('[["x\\\\"],[[[1]]]]', 3)).toBe(true); // "x\\" ends; the brackets after count
    expect(jsonDepthOver('["x\\\"[[[[[["]', 3)).toBe(false); // \\\" is an escaped quote: the brackets are text
    expect(jsonDepthOver('["never closed [[[[[[', 3)).toBe(false);
    // A run of 50,000 backslashes (25,000 escaped ones) before the closing quote, read in one pass.
    expect(parseJson(`["${'\\'.repeat(50_000)}",[1]]`)).toEqual(['\\'.repeat(25_000), [1]]);
    expect(xmlDepthOver(`${'<a>'.repeat(100_000)}`, 48)).toBe(true);
    expect(xmlDepthOver('<urlset><url><loc>x</loc></url></urlset>', 48)).toBe(false);
  });

  it('tells a page nested too deep before any tree is built, in one linear pass', () => {
    const deep = `${'<div>'.repeat(200_000)}deep${'</div>'.repeat(200_000)}`;
    // Over two million characters: a count quadratic in the length (a rescan per tag) takes minutes, so the test's own timeout is the bound.
    expect(markupDepthOver(deep, MAX_HTML_DEPTH, true)).toBe(true);
    // Elements that do not nest, tags inside scripts and comments, and closed siblings count nothing.
    const flat = `<html><body>${'<p>a<br><img src=x><li>b'.repeat(20_000)}<script>${'<div>'.repeat(5_000)}</script><!-- ${'<div>'.repeat(5_000)} -->${'<div></div>'.repeat(20_000)}</body></html>`;
    expect(markupDepthOver(flat, 10, true)).toBe(false);
    expect(readableHtml({ url: 'https://x/', status: 200, contentType: 'text/html', body: deep })).toBe(false);
    const ok = `${'<div>'.repeat(400)}deep${'</div>'.repeat(400)}`;
    expect(readableHtml({ url: 'https://x/', status: 200, contentType: 'text/html', body: ok })).toBe(true);
    expect(visibleText(load(ok).root()[0] as never)).toBe('deep');
  });

  it('prices: numbers, minor units made major, amounts as pages write them', () => {
    expect(priceNumber('19.99')).toBe(19.99);
    expect(priceNumber('19,99')).toBeNull();
    expect(fromMinorUnits('1999', 2)).toBe(19.99);
    expect(fromMinorUnits('1999', 0)).toBe(1999);
    expect(fromMinorUnits('12345', 3)).toBe(12.345);
    expect(fromMinorUnits('19.99', 2)).toBeNull();
    expect([parseAmount('1.299,00 €'), parseAmount('$1,299.00'), parseAmount('19,9'), parseAmount('EUR 5')]).toEqual([1299, 1299, 19.9, 5]);
  });

  it('posts: one per canonical URL, newest first', () => {
    expect(postKey('https://www.Blog.example/a/?utm_source=rss&id=2#top')).toBe(postKey('http://blog.example/a?id=2'));
    const post = (link: string, published: string | null, title: string | null = null) => ({ link, published, title, author: null, updated: null, summary: null, source: 'feed' as const });
    const merged = mergePosts([[post('https://b.example/1/', '2024-01-01T00:00:00.000Z')], [post('https://b.example/1?utm_medium=x', null, 'One'), post('https://b.example/2', '2024-02-01T00:00:00.000Z'), post('https://b.example/3', null)]]);
    expect(merged.map((p) => [p.link, p.title])).toEqual([['https://b.example/2', null], ['https://b.example/1/', 'One'], ['https://b.example/3', null]]);
  });

  it('post keys: a link\'s trailing slashes come off in one pass (/\\/+$/ was quadratic over a long inner run of slashes)', () => {
    // A feed or a posts API may give any link; 250,000 slashes before a letter kept the old pattern busy for over a minute.
    const slashes = '/'.repeat(250_000);
    expect(postKey(`https://www.blog.example/a${slashes}b${slashes}?utm_source=x`)).toBe(`blog.example/a${slashes}b`);
    expect(postKey('https://blog.example/a///')).toBe('blog.example/a');
  });
});
