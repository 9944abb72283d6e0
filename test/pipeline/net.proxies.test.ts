import { describe, expect, it } from 'vitest';
import { ProxyRouter } from '../../pipeline/runtime/net/proxies.js';

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
