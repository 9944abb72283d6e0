/**
 * pipeline/pages/changes-noise.ts: two snapshots that differ only by noise (a ticking clock or
 * date, a relative time, a cache-busting or tracking query parameter, an asset fingerprint)
 * give the same `withoutNoise` text; two that differ by content (a price, a version, a count,
 * a word next to a date, a query parameter that names what is linked) do not, and content
 * passes through verbatim. Adversarial 1 MB inputs come back, correct.
 */
import { describe, expect, it } from 'vitest';
import {
  FINGERPRINT_TOKEN,
  QUERY_NOISE_NAMES,
  TIME_TOKEN,
  VERSION_NAMES,
  isFingerprint,
  withoutNoise,
} from '../../pipeline/pages/changes-noise.js';

function expectSame(before: string, after: string): void {
  expect(withoutNoise(before)).toBe(withoutNoise(after));
}

function expectChanged(before: string, after: string): void {
  expect(withoutNoise(before)).not.toBe(withoutNoise(after));
}

describe('pipeline/pages/changes-noise: times and dates', () => {
  it.each([
    ['an ISO date-time, with a fraction or an offset', 'Updated 2026-11-26T23:15:10.123Z.', 'Updated 2026-11-27T00:01:02+01:00.'],
    ['an ISO date', 'As of 2026-11-26 prices are final.', 'As of 2026-11-27 prices are final.'],
    ['an ISO date and time with a space', 'Build 2026-11-26 23:15:10', 'Build 2026-11-27 00:00:01.5'],
    ['a 24-hour clock', 'Checked at 23:15.', 'Checked at 09:02.'],
    ['a clock with seconds', 'Server time 23:15:10 UTC', 'Server time 00:00:59 UTC'],
    ['a 12-hour clock', 'Refreshed 11:15 pm today', 'Refreshed 9:02 AM today'],
    ['a 12-hour clock with seconds', 'Now: 11:15:10 AM', 'Now: 12:00:59 p.m.'],
    ['a day-first date', 'Stand: 26/11/2026', 'Stand: 27/11/2026'],
    ['a month-first date', 'Printed 11/26/2026', 'Printed 12/01/2026'],
    ['a dotted date', 'Stand: 26.11.2026', 'Stand: 1.12.2026'],
    ['a short month name', 'Posted Nov 26, 2026', 'Posted Dec. 1, 2026'],
    ['a day, month name and year', 'Posted 26 November 2026', 'Posted 1st of December 2026'],
    ['a month name, day and year', 'Posted November 26, 2026', 'Posted December 1, 2026'],
    ['a weekday and a date', 'Thursday, 26 November 2026', 'Friday, 27 November 2026'],
    ['a weekday, month and day', "Today's paper: Thu, Nov 26", "Today's paper: Fri, Nov 27"],
    ['an HTTP date', 'Last-Modified: Thu, 26 Nov 2026 23:15:10 GMT', 'Last-Modified: Fri, 27 Nov 2026 00:00:01 GMT'],
    ['epoch seconds', 'build 1795734910 ok', 'build 1795738510 ok'],
    ['epoch milliseconds', 'rendered at 1795734910123', 'rendered at 1795738510999'],
    ['minutes ago', 'Updated 5 minutes ago', 'Updated 12 minutes ago'],
    ['an hour ago', 'Updated 2 hrs ago', 'Updated an hour ago'],
    ['just now', 'Last post: just now', 'Last post: 5m ago'],
    ['a few seconds ago', 'Synced a few seconds ago', 'Synced 3 days ago'],
    ['a render time', 'Page generated in 0.123 s.', 'Page generated in 0.0871 s.'],
    ['a render time in ms', 'rendered in 45ms', 'rendered in 120 ms'],
  ])('ignores %s', (_kind, before, after) => {
    expectSame(before, after);
    expect(withoutNoise(before)).toContain(TIME_TOKEN);
  });

  it('replaces the whole stamp, so its pieces cannot differ', () => {
    expect(withoutNoise('At 2026-11-26T23:15:10.123+01:00, 11:15:10 PM, Thursday, 26 November 2026.')).toBe(
      `At ${TIME_TOKEN}T${TIME_TOKEN}, ${TIME_TOKEN}, ${TIME_TOKEN}.`,
    );
  });

  it('keeps prices, versions, counts, phone numbers, years, percentages and ids verbatim', () => {
    const content = [
      'The basic plan costs $19.99; the pro plan 1,299.00 EUR (was 1.299,00).',
      'Release v2.3.1, library 1.2.3, 3 left in stock, 23.15% off, since 1998.',
      'Call +1 (555) 123-4567 or 555.123.4567, order 12345678, IP 192.168.1.1, aspect 16:9.',
      'Published November 2026. See you Nov 26! It rained yesterday and today.',
    ].join('\n');
    expect(withoutNoise(content)).toBe(content);
  });

  it.each([
    ['a price', 'The basic plan costs $19.99.', 'The basic plan costs $21.99.'],
    ['a grouped price', 'Total 1,299.00 EUR', 'Total 1,399.00 EUR'],
    ['a version', 'Latest release v2.3.1', 'Latest release v2.3.2'],
    ['a bare version', 'Requires 1.2.3', 'Requires 1.2.4'],
    ['a stock count', 'Only 3 left in stock', 'Only 2 left in stock'],
    ['a phone number', 'Call +1 (555) 123-4567', 'Call +1 (555) 123-4568'],
    ['a year', 'Family-run since 1998', 'Family-run since 1999'],
    ['a percentage', '23.15% off', '23.16% off'],
    ['a word next to a date', 'Sale ends 26 November 2026 at 23:59', 'Sale extended 26 November 2026 at 23:59'],
    ['a day and month with no weekday or year', 'Concert on Nov 26', 'Concert on Nov 27'],
    ['yesterday against today', 'Posted yesterday', 'Posted today'],
    ['an 8-digit number', 'Order 12345678', 'Order 12345679'],
    ['an 11-digit number', 'Ref 17957349101', 'Ref 17957349102'],
  ])('sees a change of %s', (_kind, before, after) => {
    expectChanged(before, after);
  });
});

describe('pipeline/pages/changes-noise: URLs', () => {
  const link = (url: string) => `See [the docs](${url}) and ![logo](${url}).`;

  it.each([...QUERY_NOISE_NAMES, 'utm_source', 'UTM_Campaign', 'CB'])('drops the %s parameter whatever its value', (name) => {
    expectSame(link(`https://x.example/a?${name}=first`), link('https://x.example/a'));
    expectSame(link(`https://x.example/a?${name}=first`), link(`https://x.example/a?${name}=second-value`));
  });

  it.each(VERSION_NAMES)('drops the %s parameter when its value is a version or a token', (name) => {
    expectSame(link(`https://x.example/a.css?${name}=3`), link(`https://x.example/a.css?${name}=6.4.2`));
    expectSame(link(`https://x.example/a.css?${name}=1795734910`), link('https://x.example/a.css'));
  });

  it('keeps short names whose value is content: a video id, a start time', () => {
    expectChanged(link('https://www.youtube.com/watch?v=dQw4w9WgXcQ'), link('https://www.youtube.com/watch?v=oHg5SJYRHA0'));
    expectChanged(link('https://www.youtube.com/watch?v=dQw4w9WgXcQ&t=42s'), link('https://www.youtube.com/watch?v=dQw4w9WgXcQ&t=43s'));
  });

  it('drops any parameter whose value is a fingerprint, named or not, unless the name says id', () => {
    expectSame(link('/app.js?build_hash=3f9a2c1b'), link('/app.js?build_hash=8e1b4f2a90'));
    expectSame(link('/style.css?1795734910'), link('/style.css?1795738510'));
    expectChanged(link('/item?id=507f1f77bcf86cd799439011'), link('/item?id=507f191e810c19729de860ea'));
    expectChanged(link('/item?productId=3f9a2c1b'), link('/item?productId=8e1b4f2a'));
  });

  it('tells fingerprints from ids: 8 hex digits with a letter, or 10 digits', () => {
    expect([isFingerprint('3f9a2c1b'), isFingerprint('DEADBEEF'), isFingerprint('1795734910')]).toEqual([true, true, true]);
    expect([isFingerprint('12345678'), isFingerprint('3f9a2c1'), isFingerprint('3f9a2c1g'), isFingerprint('')]).toEqual([false, false, false, false]);
  });

  it.each([
    ['a page number', '/list?page=2', '/list?page=3'],
    ['an id', '/item?id=42', '/item?id=43'],
    ['a search', '/search?q=shoes', '/search?q=boots'],
    ['the path', '/a?v=1', '/b?v=1'],
  ])('sees a change of %s', (_kind, before, after) => {
    expectChanged(link(before), link(after));
  });

  it('keeps the other parameters in their order, and the fragment; drops the ? when none is left', () => {
    expect(withoutNoise('[a](https://x.example/p?b=2&utm_source=feed&a=1&_=1795734910123#top)\n')).toBe('[a](https://x.example/p?b=2&a=1#top)\n');
    expect(withoutNoise('![i](/img/logo.png?cb=9&ts=123)\n')).toBe('![i](/img/logo.png)\n');
  });

  it('quiets bare URLs without eating the punctuation after them', () => {
    expect(withoutNoise('See https://x.example/p?utm_source=a&fbclid=IwAR3x. Or (https://x.example/q?v=2)!\n')).toBe(
      'See https://x.example/p. Or (https://x.example/q)!\n',
    );
  });

  it.each([
    ['app.3f9a2c1b.js', 'app.9c8e1b4f.js', 'app'],
    ['main-4f2a9c8e1b.css', 'main-0a1b2c3d4e.css', 'main'],
    ['logo.a1b2c3d4e5.png', 'logo.f0e1d2c3b4.png', 'logo'],
    ['chunk.1795734910.min.js', 'chunk.1795738510.min.js', 'chunk'],
  ])('neutralises the fingerprint in %s', (before, after, stem) => {
    expectSame(link(`https://cdn.example/static/${before}`), link(`https://cdn.example/static/${after}`));
    expect(withoutNoise(`![](/s/${before}) x`)).toContain(`/s/${stem}`);
    expect(withoutNoise(`[x](/s/${before})`)).toContain(FINGERPRINT_TOKEN);
  });

  it('touches file names only in the path of a URL, and not ids', () => {
    const text = 'Bundle app.3f9a2c1b.js from [cdn](https://cdn-3f9a2c1b.example.com/x.js), photo [p](/img/product-12345678.jpg).\n';
    expect(withoutNoise(text)).toBe(text);
  });

  it('changes nothing else: case, lines and non-noise text stay as they are', () => {
    const page = '# Prices\n\nThe BASIC plan costs 10 EUR.\n\n- [Pricing](https://x.example/pricing?plan=pro)\n\n```\ncode  kept\n```\n';
    expect(withoutNoise(page)).toBe(page);
  });
});

describe('pipeline/pages/changes-noise: adversarial input', () => {
  const MB = 1 << 20;
  const repeatTo = (unit: string, size: number) => unit.repeat(Math.ceil(size / unit.length));

  it.each([
    ['a digit run', repeatTo('7', MB)],
    ['ones with commas', repeatTo('1,', MB)],
    ['colons between single digits', repeatTo('1:2:', MB)],
    ['slashes', repeatTo('/', MB)],
    ['dots between digits', repeatTo('1.', MB)],
    ['query punctuation in a link', `[a](${repeatTo('?&=', MB)})`],
    ['URL schemes', repeatTo('http://', MB)],
    ['a dashed hex run with no extension', `[a](https://x.example/-${repeatTo('a', MB)})`],
    ['month names and days with no year', repeatTo('Nov 26, ', MB)],
    ['half a relative time', repeatTo('a few ', MB)],
  ])('returns %s unchanged', (_kind, text) => {
    expect(withoutNoise(text)).toBe(text);
  });

  it('quiets a megabyte of clocks, dates, parameters and a huge fingerprint', () => {
    const clocks = repeatTo('23:15 ', MB);
    expect(withoutNoise(clocks)).toBe(`${TIME_TOKEN} `.repeat(clocks.length / 6));
    const dates = repeatTo('2026-11-26T', MB);
    expect(withoutNoise(dates)).toBe(`${TIME_TOKEN}T`.repeat(dates.length / 11));
    expect(withoutNoise(`https://x.example/p?${repeatTo('v=1&', MB)}page=2`)).toBe('https://x.example/p?page=2');
    expect(withoutNoise(`[a](https://x.example/app-${repeatTo('3f', MB)}.js)`)).toBe(`[a](https://x.example/app-${FINGERPRINT_TOKEN}.js)`);
  });
});
