/**
 * pipeline/intel/links.ts, the pure part: which links of a page become edges of the link graph
 * and under which domains (tldts, ICANN suffixes), and the rows the parser queues for them.
 */
import { describe, expect, it } from 'vitest';
import { LINKS_READ_PER_PAGE, linkDomainOf, linkEdgesOf, linkPageRows, MAX_LINK_URL_LENGTH } from '../../pipeline/intel/links.js';

const AT = Date.parse('2025-02-03T04:05:06.007Z');
const targets = (page: string, links: readonly string[]) => linkEdgesOf(page, links, AT).map((e) => [e.targetDomain, e.targetUrl]);

describe('pipeline/intel/links linkEdgesOf', () => {
  it('files both ends under their registrable domains, with the page, the link and the time', () => {
    expect(linkEdgesOf('https://www.blog.example.com/post?id=1#comments', ['https://docs.other.org/guide#part-2'], AT)).toEqual([
      { sourceDomain: 'example.com', targetDomain: 'other.org', sourceUrl: 'https://www.blog.example.com/post?id=1', targetUrl: 'https://docs.other.org/guide', seenAtMs: AT },
    ]);
  });

  it('collapses subdomains onto the registrable domain, public suffixes of several labels included', () => {
    expect(targets('https://example.com/', ['https://a.b.shop.co.uk/x', 'https://www.bbc.co.uk/', 'http://city.kawasaki.jp/', 'https://x.y.com.au/z'])).toEqual([
      ['shop.co.uk', 'https://a.b.shop.co.uk/x'],
      ['bbc.co.uk', 'https://www.bbc.co.uk/'],
      ['city.kawasaki.jp', 'http://city.kawasaki.jp/'],
      ['y.com.au', 'https://x.y.com.au/z'],
    ]);
  });

  it('uses the ICANN suffixes only: a private suffix (github.io, blogspot.com) is not a domain boundary', () => {
    expect(targets('https://example.com/', ['https://alice.github.io/site', 'https://bob.github.io/', 'https://x.blogspot.com/'])).toEqual([
      ['github.io', 'https://alice.github.io/site'],
      ['github.io', 'https://bob.github.io/'],
      ['blogspot.com', 'https://x.blogspot.com/'],
    ]);
  });

  it('drops links within the page’s own registrable domain, whatever the subdomain, scheme or port', () => {
    expect(
      targets('https://shop.example.co.uk/cart', ['https://shop.example.co.uk/', 'http://www.example.co.uk:8080/a', 'https://EXAMPLE.co.uk/b', 'https://other.co.uk/']),
    ).toEqual([['other.co.uk', 'https://other.co.uk/']]);
  });

  it('files internationalized domains in their ASCII (punycode) form, from either spelling', () => {
    expect(targets('https://example.com/', ['https://www.bücher.de/katalog', 'https://xn--bcher-kva.de/other', 'https://münchen.xn--p1ai/'])).toEqual([
      ['xn--bcher-kva.de', 'https://www.xn--bcher-kva.de/katalog'],
      ['xn--bcher-kva.de', 'https://xn--bcher-kva.de/other'],
      ['xn--mnchen-3ya.xn--p1ai', 'https://xn--mnchen-3ya.xn--p1ai/'],
    ]);
    // A page on an IDN: its own links in either spelling are internal.
    expect(targets('https://bücher.de/', ['https://xn--bcher-kva.de/x', 'https://shop.bücher.de/y', 'https://example.com/'])).toEqual([['example.com', 'https://example.com/']]);
  });

  it('keeps a host without a registrable domain as itself: IP addresses, single labels, bare suffixes', () => {
    expect(targets('https://example.com/', ['http://192.0.2.7:8080/x', 'http://[2001:db8::1]/y', 'http://localhost/', 'https://co.uk/'])).toEqual([
      ['192.0.2.7', 'http://192.0.2.7:8080/x'],
      ['[2001:db8::1]', 'http://[2001:db8::1]/y'],
      ['localhost', 'http://localhost/'],
      ['co.uk', 'https://co.uk/'],
    ]);
    // Two addresses are two domains; a page on an address links out like any page.
    expect(linkEdgesOf('http://192.0.2.7/', ['http://192.0.2.8/', 'http://192.0.2.7:81/', 'https://example.com/'], AT).map((e) => [e.sourceDomain, e.targetDomain])).toEqual([
      ['192.0.2.7', '192.0.2.8'],
      ['192.0.2.7', 'example.com'],
    ]);
  });

  it('reads only absolute http(s) links, drops credentials and fragments, and lists a link once', () => {
    expect(
      targets('https://example.com/', [
        'mailto:someone@other.org',
        'ftp://files.other.org/a',
        'javascript:void(0)',
        '/relative/path',
        'not a url',
        'https://user:secret@other.org/private',
        'HTTPS://Other.ORG/Caps',
        'https://other.org/page#one',
        'https://other.org/page#two',
        'https://other.org./dot',
      ]),
    ).toEqual([
      ['other.org', 'https://other.org/private'],
      ['other.org', 'https://other.org/Caps'],
      ['other.org', 'https://other.org/page'],
      ['other.org', 'https://other.org./dot'],
    ]);
  });

  it('has no edges for a page that is not an http(s) URL, or has no links', () => {
    expect(linkEdgesOf('file:///etc/passwd', ['https://other.org/'], AT)).toEqual([]);
    expect(linkEdgesOf('not a url', ['https://other.org/'], AT)).toEqual([]);
    expect(linkEdgesOf('https://example.com/', [], AT)).toEqual([]);
  });

  it(`reads the first ${LINKS_READ_PER_PAGE} links of a page only`, () => {
    const links = Array.from({ length: LINKS_READ_PER_PAGE + 500 }, (_, i) => `https://site${i}.org/`);
    const edges = linkEdgesOf('https://example.com/', links, AT);
    expect(edges).toHaveLength(LINKS_READ_PER_PAGE);
    expect(edges.at(-1)?.targetDomain).toBe(`site${LINKS_READ_PER_PAGE - 1}.org`);
    // Internal links count among those read.
    const mixed = [...Array.from({ length: LINKS_READ_PER_PAGE }, (_, i) => `https://example.com/${i}`), 'https://other.org/'];
    expect(linkEdgesOf('https://example.com/', mixed, AT)).toEqual([]);
  });

  it(`skips a link longer than ${MAX_LINK_URL_LENGTH} characters, and a page URL that long has no edges`, () => {
    const long = `https://other.org/${'a'.repeat(MAX_LINK_URL_LENGTH)}`;
    const fits = `https://other.org/${'b'.repeat(MAX_LINK_URL_LENGTH - 'https://other.org/'.length)}`;
    expect(targets('https://example.com/', [long, fits, 'https://third.org/'])).toEqual([
      ['other.org', fits],
      ['third.org', 'https://third.org/'],
    ]);
    expect(linkEdgesOf(`https://example.com/${'p'.repeat(MAX_LINK_URL_LENGTH)}`, ['https://other.org/'], AT)).toEqual([]);
  });
});

describe('pipeline/intel/links linkDomainOf', () => {
  it('files a host, a domain or a URL as the graph does', () => {
    expect(linkDomainOf('https://Blog.Example.co.uk/x?y#z')).toBe('example.co.uk');
    expect(linkDomainOf('www.example.com')).toBe('example.com');
    expect(linkDomainOf(' EXAMPLE.COM. ')).toBe('example.com');
    expect(linkDomainOf('bücher.de')).toBe('xn--bcher-kva.de');
    expect(linkDomainOf('192.0.2.1')).toBe('192.0.2.1');
    expect(linkDomainOf('ftp://example.com/')).toBeNull();
    expect(linkDomainOf('')).toBeNull();
    expect(linkDomainOf('exa mple.com')).toBeNull();
  });
});

describe('pipeline/intel/links linkPageRows', () => {
  it('writes one row per linking page, its targets as parallel arrays', () => {
    const edges = linkEdgesOf('https://example.com/a', ['https://one.org/x', 'https://two.org/', 'https://one.org/y'], AT);
    expect(linkPageRows(edges)).toEqual([
      {
        source_domain: 'example.com',
        source_url: 'https://example.com/a',
        seen_at: AT,
        target_domains: ['one.org', 'two.org', 'one.org'],
        target_urls: ['https://one.org/x', 'https://two.org/', 'https://one.org/y'],
      },
    ]);
    expect(linkPageRows([])).toEqual([]);
  });
});
