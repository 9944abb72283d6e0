import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ALLOW_ALL, DISALLOW_ALL, parseRobots, robotsFromStatus, robotsPolicy, ROBOTS_MAX_BYTES } from '../../actors/frontier/robots.js';

const ROBOTS_URL = 'https://example.com/robots.txt';
const allows = (text: string, path: string, agents?: string[]) => robotsPolicy(parseRobots(text, ROBOTS_URL), agents).allows(`https://example.com${path}`);

describe('actors/frontier/robots', () => {
  it('collects every Sitemap line, resolved and deduplicated, wherever it stands', () => {
    const robots = parseRobots(
      'Sitemap: https://example.com/a.xml\nUser-agent: *\nDisallow: /x\nsitemap: /b.xml.gz  # relative\nSITEMAP:https://cdn.example.net/c.xml\nSitemap: https://example.com/a.xml\nSitemap: ftp://example.com/d.xml\nSitemap: \n',
      ROBOTS_URL,
    );
    expect(robots.sitemaps).toEqual(['https://example.com/a.xml', 'https://example.com/b.xml.gz', 'https://cdn.example.net/c.xml']);
  });

  it('applies the * group, with the longest matching pattern deciding and allow winning a tie', () => {
    const text = 'User-agent: *\nDisallow: /private/\nAllow: /private/open\nDisallow: /page$\nAllow: /tie\nDisallow: /tie\n';
    expect(allows(text, '/')).toBe(true);
    expect(allows(text, '/private/')).toBe(false);
    expect(allows(text, '/private/area')).toBe(false);
    expect(allows(text, '/private/open/door')).toBe(true);
    expect(allows(text, '/page')).toBe(false);
    expect(allows(text, '/page/2')).toBe(true);
    expect(allows(text, '/tie')).toBe(true);
    expect(allows(text, '/robots.txt')).toBe(true);
  });

  it('matches * wildcards and the $ anchor against path and query', () => {
    const text = 'User-agent: *\nDisallow: /*.pdf$\nDisallow: /*?session=\nDisallow: /a*/b\n';
    expect(allows(text, '/doc.pdf')).toBe(false);
    expect(allows(text, '/doc.pdf?x=1')).toBe(true);
    expect(allows(text, '/list?session=42')).toBe(false);
    expect(allows(text, '/list?page=2')).toBe(true);
    expect(allows(text, '/abc/b')).toBe(false);
    expect(allows(text, '/b')).toBe(true);
  });

  it('prefers a group naming our agent over *, merges groups of one agent, and ignores rules outside groups', () => {
    const text =
      'Disallow: /everything\nUser-agent: OtherBot\nDisallow: /\n\nUser-agent: *\nDisallow: /star-only\n\nUser-agent: webdataservice/1.0\nDisallow: /ours-a\nUser-agent: WebDataService\nDisallow: /ours-b\n';
    expect(allows(text, '/star-only')).toBe(true);
    expect(allows(text, '/ours-a')).toBe(false);
    expect(allows(text, '/ours-b')).toBe(false);
    expect(allows(text, '/everything')).toBe(true);
    expect(allows(text, '/star-only', ['SomeoneElse'])).toBe(false);
    expect(allows(text, '/anything', ['OtherBot'])).toBe(false);
  });

  it('reads consecutive user-agent lines as one group, and an empty Disallow as allowing everything', () => {
    const text = 'User-agent: a\nUser-agent: *\nDisallow:\n\nUser-agent: b\nDisallow: /';
    expect(allows(text, '/x')).toBe(true);
    expect(allows(text, '/x', ['b'])).toBe(false);
  });

  it('compares percent-encoded: non-ASCII patterns and escapes of either case', () => {
    const text = 'User-agent: *\nDisallow: /café\nDisallow: /a%2fb\n';
    expect(allows(text, '/caf%C3%A9/menu')).toBe(false);
    expect(allows(text, '/café/menu')).toBe(false);
    expect(allows(text, '/a%2Fb')).toBe(false);
    expect(allows(text, '/cafe')).toBe(true);
  });

  it('tolerates junk: BOM, CRLF, comments, lines without a colon, unknown fields; keeps crawl-delay', () => {
    const text = '\uFEFFUser-agent: *\r\nthis is not a rule\r\nDisallow: /x # comment\r\nHost: example.com\r\nCrawl-delay: 2.5\r\n<html>oops</html>\r\n';
    const policy = robotsPolicy(parseRobots(text, ROBOTS_URL));
    expect(policy.allows('https://example.com/x/y')).toBe(false);
    expect(policy.allows('https://example.com/y')).toBe(true);
    expect(policy.crawlDelayMs).toBe(2500);
  });

  it('reads only the first 500 KiB', () => {
    const text = `User-agent: *\n${'# filler\n'.repeat(ROBOTS_MAX_BYTES / 9 + 1)}Disallow: /late\n`;
    expect(allows(text, '/late')).toBe(true);
  });

  it('turns the fetch status into a policy: 2xx parsed, 4xx allow all, 5xx disallow all', () => {
    expect(robotsFromStatus(200, 'User-agent: *\nDisallow: /a', ROBOTS_URL).allows('https://example.com/a')).toBe(false);
    expect(robotsFromStatus(404, 'User-agent: *\nDisallow: /', ROBOTS_URL)).toBe(ALLOW_ALL);
    expect(robotsFromStatus(503, '', ROBOTS_URL)).toBe(DISALLOW_ALL);
    expect(ALLOW_ALL.allows('https://example.com/anything')).toBe(true);
    expect(DISALLOW_ALL.allows('https://example.com/anything')).toBe(false);
  });

  it('matches a hostile wildcard rule against a 10,000-character path without backtracking', () => {
    // A backtracking regular expression took 641 ms on 60 characters and more than 20 s on 100;
    // the test's own timeout is the bound, the answers are what it checks.
    const text = 'User-agent: *\nDisallow: /*a*a*a*a*a*a*b\nDisallow: /*a*a*a*a*a*a*c$\n';
    const long = 'a'.repeat(10_000);
    for (let i = 0; i < 200; i++) {
      expect(allows(text, `/${long}`)).toBe(true);
      expect(allows(text, `/${long}c`)).toBe(false);
      expect(allows(text, `/${long}b${long}`)).toBe(false);
      expect(allows(text, `/${long}c${long}`)).toBe(true);
    }
  });

  it('agrees with the rules read as regular expressions on every small pattern and path', () => {
    const reference = (pattern: string, path: string) => {
      const anchored = pattern.endsWith('$');
      const body = (anchored ? pattern.slice(0, -1) : pattern)
        .split('*')
        .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
        .join('.*');
      return new RegExp(`^${body}${anchored ? '$' : ''}`).test(path);
    };
    const char = fc.constantFrom('a', 'b', '/', '*', '$', '.');
    fc.assert(
      fc.property(fc.string({ unit: char, maxLength: 8 }), fc.string({ unit: fc.constantFrom('a', 'b', '/', '.', '$'), maxLength: 12 }), (raw, rest) => {
        const pattern = `/${raw}`;
        const path = `/${rest}`;
        const url = new URL(`https://example.com${path}`);
        const expected = url.pathname !== '/robots.txt' && reference(pattern, `${url.pathname}${url.search}`);
        expect(allows(`User-agent: *\nDisallow: ${pattern}\n`, path)).toBe(!expected);
      }),
      { numRuns: 5000 },
    );
  });

  it('drops comments in one pass: a long run of # before a U+2028 (/#.*$/ was quadratic there)', () => {
    // `.` stops at U+2028, so no # of the run starts the comment: the line is kept whole (and
    // trimmed), as /#.*$/ left it, after scanning to the end from every # (minutes at this size).
    const hashes = '#'.repeat(200_000);
    const robots = parseRobots(`User-agent: *\nDisallow: /a # ${hashes}\u2028\nDisallow: /b\u2028c # comment\nAllow: /d # x # y`, 'https://example.com/robots.txt');
    expect(robots.groups[0]?.rules).toEqual([
      { allow: false, pattern: `/a # ${hashes}` },
      { allow: false, pattern: '/b\u2028c' },
      { allow: true, pattern: '/d' },
    ]);
  });
});
