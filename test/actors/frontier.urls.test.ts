import { describe, expect, it } from 'vitest';
import { cleanUrl, hostInSite, identify, inSite, isSessionParam, isTrackingParam, MAX_URL_LENGTH, siteOf, UrlSet, urlKey } from '../../actors/frontier/urls.js';

describe('actors/frontier/urls', () => {
  it('cleans a URL: fragment, credentials, default port, host case and tracking parameters go', () => {
    expect(cleanUrl('HTTPS://User:Pw@Example.COM:443/a/b?utm_source=x&id=3&fbclid=y&UTM_Medium=z#frag')).toBe('https://example.com/a/b?id=3');
    expect(cleanUrl('http://example.com:80/?gclid=1')).toBe('http://example.com/');
    expect(cleanUrl('../c?q=1#x', 'https://example.com/a/b/')).toBe('https://example.com/a/c?q=1');
    expect(cleanUrl('/x?a=1&b=2', 'https://example.com/')).toBe('https://example.com/x?a=1&b=2');
    for (const bad of ['mailto:a@example.com', 'javascript:void(0)', '#top', '', 'ftp://example.com/f', 'http://']) {
      expect(cleanUrl(bad, 'https://example.com/'), bad).toBeNull();
    }
    expect(isTrackingParam('utm_campaign')).toBe(true);
    expect(isTrackingParam('page')).toBe(false);
  });

  it(`holds no URL over ${MAX_URL_LENGTH} characters, as written or once resolved`, () => {
    const path = (n: number) => `/p?q=${'x'.repeat(n)}`;
    const fits = `https://example.com${path(MAX_URL_LENGTH - 'https://example.com/p?q='.length)}`;
    expect(cleanUrl(fits)).toBe(fits);
    expect(cleanUrl(`${fits}y`)).toBeNull();
    expect(cleanUrl(path(MAX_URL_LENGTH - 10), `https://example.com/${'b'.repeat(100)}/`)).toBeNull();
    expect(identify(`https://example.com/?q=${'x'.repeat(100_000)}`)).toBeNull();
  });

  it('drops session ids: path parameters, session query parameters, and sid when it is a token', () => {
    const token = '0123456789ABCDEF0123456789ABCDEF';
    expect(cleanUrl(`https://example.com/shop/item;jsessionid=${token}?id=7`)).toBe('https://example.com/shop/item?id=7');
    expect(cleanUrl(`https://example.com/a;JSESSIONID=${token}/b`)).toBe('https://example.com/a/b');
    expect(cleanUrl(`https://example.com/a;sid=${token}`)).toBe('https://example.com/a');
    expect(cleanUrl('https://example.com/a;v=2')).toBe('https://example.com/a;v=2');
    expect(cleanUrl(`https://example.com/p?PHPSESSID=${token}&page=2`)).toBe('https://example.com/p?page=2');
    expect(cleanUrl(`https://example.com/p?sid=${token.toLowerCase()}&q=x`)).toBe('https://example.com/p?q=x');
    expect(cleanUrl(`https://example.com/p?ASPSESSIONIDQASDFGHJ=ABCDEFGHIJKLMNOPQRSTUVWX&sessionid=1&session_id=2&CFID=12&CFTOKEN=34&osCsid=${token}&zenid=z`)).toBe('https://example.com/p');
    // A short or punctuated sid is another kind of id: kept.
    expect(cleanUrl('https://example.com/story?sid=42')).toBe('https://example.com/story?sid=42');
    expect(cleanUrl('https://example.com/story?sid=2026-11-22-my-long-story')).toBe('https://example.com/story?sid=2026-11-22-my-long-story');
    expect(isSessionParam('JSESSIONID', 'x')).toBe(true);
    expect(isSessionParam('sid', 'abc')).toBe(false);
    expect(isSessionParam('session', token)).toBe(false);
    // Every view of the same page under a new session is one URL.
    const views = [`/a;jsessionid=${token}`, `/a?PHPSESSID=${token.slice(1)}x`, '/a?sid=ffffffffffffffffffffffffffffffff', '/a'];
    expect(new Set(views.map((v) => urlKey(cleanUrl(v, 'https://example.com/') as string))).size).toBe(1);
  });

  it('drops the tracking parameters of the big ad and mail platforms', () => {
    for (const name of ['utm_source', 'UTM_Content', 'fbclid', 'gclid', 'gad_source', 'srsltid', 'msclkid', 'mc_eid', '_hsenc']) {
      expect(cleanUrl(`https://example.com/a?${name}=x&keep=1`), name).toBe('https://example.com/a?keep=1');
    }
  });

  it('keys a URL so that scheme, www., a trailing slash and query order make no new URL', () => {
    const key = urlKey('https://www.example.com/docs/?b=2&a=1');
    expect(urlKey('http://example.com/docs?a=1&b=2')).toBe(key);
    expect(urlKey('https://example.com/docs//?a=1&b=2')).toBe(key);
    expect(urlKey('https://example.com/docs?a=2&b=1')).not.toBe(key);
    expect(urlKey('https://example.com/')).toBe(urlKey('https://www.example.com'));
    expect(urlKey('https://example.com:8443/x')).not.toBe(urlKey('https://example.com/x'));
    expect(urlKey('https://example.com/Docs')).not.toBe(urlKey('https://example.com/docs'));
  });

  it('scopes a site: www. is the same site, subdomains only when asked, other hosts never', () => {
    const site = siteOf('https://www.example.com/start');
    expect(site).toBe('example.com');
    expect(inSite('https://example.com/a', site, false)).toBe(true);
    expect(inSite('http://www.example.com:8080/a', site, false)).toBe(true);
    expect(inSite('https://blog.example.com/a', site, false)).toBe(false);
    expect(inSite('https://blog.example.com/a', site, true)).toBe(true);
    expect(inSite('https://a.b.example.com/a', site, true)).toBe(true);
    expect(inSite('https://notexample.com/a', site, true)).toBe(false);
    expect(inSite('https://example.com.evil.net/a', site, true)).toBe(false);
    expect(inSite('not a url', site, true)).toBe(false);
  });

  it('identify cleans, keys and scopes in one go, as cleanUrl, urlKey and siteOf do', () => {
    const ref = 'HTTP://WWW.Example.com:80/a/?utm_source=x&b=2&a=1#f';
    const id = identify(ref);
    expect(id).toEqual({ url: cleanUrl(ref), key: urlKey(cleanUrl(ref) as string), host: siteOf(cleanUrl(ref) as string) });
    expect(id).toEqual({ url: 'http://www.example.com/a/?b=2&a=1', key: 'example.com/a?a=1&b=2', host: 'example.com' });
    expect(identify('javascript:alert(1)')).toBeNull();
    expect(hostInSite('docs.example.com', 'example.com', true)).toBe(true);
    expect(hostInSite('docs.example.com', 'example.com', false)).toBe(false);
  });

  it('UrlSet keeps the first sighting, upgrading to https and filling a missing title', () => {
    const set = new UrlSet<{ url: string; title?: string }>();
    expect(set.add({ url: 'http://example.com/a/' })).toBe(true);
    expect(set.add({ url: 'https://www.example.com/a', title: 'A' })).toBe(false);
    expect(set.add({ url: 'https://example.com/b', title: 'B' })).toBe(true);
    expect(set.add({ url: 'https://example.com/b/', title: 'other' })).toBe(false);
    expect(set.values()).toEqual([
      { url: 'https://www.example.com/a', title: 'A' },
      { url: 'https://example.com/b', title: 'B' },
    ]);
    expect(set.has('http://example.com/b')).toBe(true);
    expect(set.size).toBe(2);
  });
});
