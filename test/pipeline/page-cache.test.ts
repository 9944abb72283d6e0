/**
 * pipeline/pages/cache.ts: which copy a request may be served (URL, cache key, shareable),
 * how long it may be, whether the response is kept, and the row columns' round trip.
 */
import { describe, expect, it } from 'vitest';
import { cacheColumns, cachedCopy, cachePlan, isPageSource, type CachedRow } from '../../pipeline/pages/cache.js';
import { normalizeUrl } from '../../pipeline/runtime/url.js';
import { SOURCE_CREDITS } from '../../schemas/api/prices.js';

describe('pipeline/pages/cache', () => {
  it('files a copy under the normalized URL: host case, default port, empty path and fragment do not matter', () => {
    expect(normalizeUrl('HTTPS://Example.COM:443#top')).toBe('https://example.com/');
    expect(normalizeUrl('https://example.com/a/../b?x=1&y=2#frag')).toBe('https://example.com/b?x=1&y=2');
    // Query order is the server's business: kept as it is.
    expect(normalizeUrl('https://example.com/b?y=2&x=1')).toBe('https://example.com/b?y=2&x=1');
    expect(normalizeUrl('not a url')).toBe('not a url');
    expect(cachePlan('https://EXAMPLE.com/p#x', {}).url).toBe('https://example.com/p');
  });

  it('keys a copy by what changes the bytes, not by how they are read', () => {
    const base = cachePlan('https://example.com/', {});
    const key = (options: Parameters<typeof cachePlan>[1]) => cachePlan('https://example.com/', options).key;
    expect(base.key).toMatch(/^[0-9a-f]{32}$/);
    // Reading options, the proxy route, the timeout and maxAge itself share the copy.
    expect(key({ formats: ['links', 'html'], onlyMainContent: false, excludeTags: ['nav'], proxy: 'residential', timeout: 5000, maxAge: 1 })).toBe(base.key);
    expect(key({ mobile: false, location: null })).toBe(base.key);
    // What changes the request the server sees gets its own copy.
    const variants = [
      key({ mobile: true }),
      key({ location: { country: 'DE' } }),
      key({ location: { country: 'DE', languages: ['en'] } }),
      key({ parsers: ['pdf'] }),
      key({ headers: { cookie: 'a=1' } }),
      key({ headers: { cookie: 'a=2' } }),
    ];
    expect(new Set([base.key, ...variants]).size).toBe(variants.length + 1);
    // The languages a country implies are what an explicit list of them sends.
    expect(key({ location: { country: 'de' } })).toBe(key({ location: { country: 'DE', languages: ['de-DE', 'de'] } }));
    // Header names are case-insensitive and their order does not matter; values do.
    expect(key({ headers: { Cookie: 'a=1', 'X-A': 'b' } })).toBe(key({ headers: { 'x-a': 'b', cookie: 'a=1' } }));
  });

  it('keys a rendered copy by its render (waitFor, actions, blockAssets); a plain fetch keeps its key', () => {
    const key = (options: Parameters<typeof cachePlan>[1]) => cachePlan('https://example.com/', options).key;
    const plain = key({});
    expect(key({ blockAssets: false, captchaHandling: 'off' })).toBe(plain);
    const rendered = [
      key({ waitFor: 500 }),
      key({ waitFor: 1000 }),
      key({ actions: [{ type: 'click', selector: '#a' }] }),
      key({ actions: [{ type: 'click', selector: '#b' }] }),
      key({ waitFor: 500, blockAssets: false }),
      key({ formats: ['screenshot'] }),
    ];
    expect(new Set([plain, ...rendered]).size).toBe(rendered.length + 1);
    // How a rendered page is read does not change its copy.
    expect(key({ formats: ['network'] })).toBe(key({ formats: ['screenshot', 'markdown'] }));
  });

  it('keeps a copy fetched with the caller\'s own headers out of the shared index, and never stores their values', () => {
    expect(cachePlan('https://example.com/', {}).shareable).toBe(true);
    expect(cachePlan('https://example.com/', { headers: {} }).shareable).toBe(true);
    const secret = cachePlan('https://example.com/', { headers: { Authorization: 'Bearer s3cret-token' } });
    expect(secret.shareable).toBe(false);
    const columns = cacheColumns(secret, { body: Buffer.from('x'), headers: { 'content-type': 'text/plain' } });
    expect(JSON.stringify(columns)).not.toContain('s3cret');
    expect(columns.shareable).toBe(0);
  });

  it('looks only when maxAge is above 0 and keeps the response unless storeInCache is false', () => {
    expect(cachePlan('https://example.com/', {})).toMatchObject({ maxAgeMs: 0, store: true });
    expect(cachePlan('https://example.com/', { maxAge: 0, storeInCache: true })).toMatchObject({ maxAgeMs: 0, store: true });
    expect(cachePlan('https://example.com/', { maxAge: 172_800_000, storeInCache: false })).toMatchObject({ maxAgeMs: 172_800_000, store: false });
  });

  it('prices a page by where it came from (spec Pricing rule 2)', () => {
    expect(SOURCE_CREDITS).toEqual({ fresh: 1, cache: 0, index: 1 });
    expect(['fresh', 'cache', 'index', 'parser', null].map(isPageSource)).toEqual([true, true, true, false, false]);
  });

  it('reads back the row columns it writes: any bytes, the headers, the time', () => {
    const plan = cachePlan('https://example.com/x', {});
    const body = Buffer.from([0x3c, 0x00, 0xff, 0xfe, 0x80, 0xc3, 0x28]);
    const columns = cacheColumns(plan, { body: body.subarray(1, 5), headers: { etag: '"1"', 'content-type': 'text/html' } });
    expect(columns).toEqual({
      url: 'https://example.com/x',
      cache_key: plan.key,
      shareable: 1,
      body_base64: Buffer.from([0x00, 0xff, 0xfe, 0x80]).toString('base64'),
      response_headers: '{"etag":"\\"1\\"","content-type":"text/html"}',
    });
    const row: CachedRow = {
      tenant: 't',
      request_id: 'r',
      fetched_at_ms: '1795000000123',
      status_code: 200,
      content_type: 'text/html',
      final_url: 'https://example.com/y',
      response_headers: columns.response_headers as string,
      body_base64: columns.body_base64 as string,
    };
    expect(cachedCopy(row, 'index')).toEqual({
      source: 'index',
      requestId: 'r',
      fetchedAtMs: 1_795_000_000_123,
      statusCode: 200,
      contentType: 'text/html',
      finalUrl: 'https://example.com/y',
      headers: { etag: '"1"', 'content-type': 'text/html' },
      body: Buffer.from([0x00, 0xff, 0xfe, 0x80]),
    });
    expect(cachedCopy({ ...row, response_headers: 'not json' }, 'cache').headers).toEqual({});
  });
});
