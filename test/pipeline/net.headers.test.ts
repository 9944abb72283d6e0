import { describe, expect, it } from 'vitest';
import { isReservedHeader, mergeHeaders } from '../../pipeline/runtime/net/headers.js';
import { acceptLanguage, languagesFor } from '../../pipeline/runtime/net/locale.js';
import { ProxyRouter } from '../../pipeline/runtime/net/proxies.js';

describe('pipeline/runtime/net/headers', () => {
  it('reserves browser identity and transport headers', () => {
    for (const name of ['User-Agent', 'sec-ch-ua', 'Sec-CH-UA-Platform', 'Sec-Fetch-Mode', 'Accept-Encoding', 'Host', 'Connection', 'Proxy-Authorization']) {
      expect(isReservedHeader(name, false), name).toBe(true);
    }
    expect(isReservedHeader('Accept-Language', false)).toBe(false);
    expect(isReservedHeader('Accept-Language', true)).toBe(true);
    expect(isReservedHeader('Cookie', false)).toBe(false);
  });

  it('merges generated, then allowed caller headers, then forced ones', () => {
    const merged = mergeHeaders(
      { 'User-Agent': 'Browser/1', Accept: 'text/html', 'Accept-Language': 'en-US' },
      { 'user-agent': 'curl', accept: 'application/json', 'X-Token': 'abc', 'Bad Name': 'x', 'X-Split': 'a\r\nb' },
      { 'Accept-Encoding': 'gzip' },
      false,
    );
    expect(merged).toEqual({ 'User-Agent': 'Browser/1', accept: 'application/json', 'Accept-Language': 'en-US', 'X-Token': 'abc', 'Accept-Encoding': 'gzip' });
  });
});

describe('pipeline/runtime/net/locale', () => {
  it('maps countries to languages; languages given win', () => {
    expect(languagesFor({ country: 'de' })).toEqual(['de-DE', 'de']);
    expect(languagesFor({ country: 'JP', languages: ['en'] })).toEqual(['en']);
    expect(languagesFor({ country: 'ZZ' })).toEqual(['en-ZZ', 'en']);
    expect(acceptLanguage(['de-DE', 'de', 'en'])).toBe('de-DE,de;q=0.9,en;q=0.8');
  });
});

describe('pipeline/runtime/net/proxies', () => {
  const router = new ProxyRouter({ datacenter: ['http://dc1', 'http://dc2'], mobile: ['http://m1'] }, { de: ['http://de1'] });

  it('routes by the proxy option, in turn within a pool', () => {
    expect(router.choose('none')).toEqual({ proxyUrl: null, proxyUsed: 'none', proxyCountry: null });
    expect(router.choose('datacenter').proxyUrl).toBe('http://dc1');
    expect(router.choose('datacenter').proxyUrl).toBe('http://dc2');
    expect(router.choose('mobile', 'DE')).toEqual({ proxyUrl: 'http://m1', proxyUsed: 'mobile', proxyCountry: null });
  });

  it('auto: the country pool, else datacenter, else direct — and says which', () => {
    expect(router.choose('auto', 'DE')).toEqual({ proxyUrl: 'http://de1', proxyUsed: 'residential', proxyCountry: 'DE' });
    expect(router.choose('auto', 'FR').proxyUsed).toBe('datacenter');
    expect(new ProxyRouter().choose('auto')).toEqual({ proxyUrl: null, proxyUsed: 'none', proxyCountry: null });
  });

  it('a route with no pool is proxy_unavailable, never a direct fetch', () => {
    expect(() => router.choose('residential')).toThrow(expect.objectContaining({ code: 'proxy_unavailable' }));
    expect(router.choose('residential', 'de').proxyUrl).toBe('http://de1');
    expect(() => new ProxyRouter().choose('datacenter')).toThrow(expect.objectContaining({ code: 'proxy_unavailable' }));
  });
});
