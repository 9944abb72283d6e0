import { describe, expect, it } from 'vitest';
import { FetchCookies } from '../../pipeline/runtime/net/cookies.js';

const u = (href: string) => new URL(href);

describe('pipeline/runtime/net/cookies', () => {
  it("scopes the caller's Cookie as a host-only cookie of the first URL: same host name, any path or port", () => {
    const cookies = new FetchCookies(u('http://shop.example.com/a'), 'pref=dark');
    expect(cookies.header(u('http://shop.example.com/other/path'))).toBe('pref=dark');
    expect(cookies.header(u('https://shop.example.com/'))).toBe('pref=dark');
    expect(cookies.header(u('http://shop.example.com:8080/'))).toBe('pref=dark');
    for (const elsewhere of ['http://example.com/', 'http://www.example.com/', 'http://evil.shop.example.com/', 'http://shop.example.com.evil.test/', 'http://other.test/']) {
      expect(cookies.header(u(elsewhere)), elsewhere).toBe('');
    }
  });

  it("never sends the caller's Cookie over http once the fetch started over https", () => {
    const cookies = new FetchCookies(u('https://example.com/'), 'session=s3cret');
    expect(cookies.header(u('https://example.com/next'))).toBe('session=s3cret');
    expect(cookies.header(u('http://example.com/next'))).toBe('');
  });

  it('stores Set-Cookie by RFC 6265: domain, path, secure, host-only, expiry', () => {
    const cookies = new FetchCookies(u('https://www.example.com/'), undefined);
    cookies.store(u('https://www.example.com/shop/cart'), [
      'host=1',
      'wide=1; Domain=example.com; Path=/',
      'secure=1; Secure; Path=/',
      'suffix=1; Domain=com; Path=/',
      'foreign=1; Domain=other.test; Path=/',
      'not a cookie',
    ]);
    expect(cookies.header(u('https://www.example.com/shop/x'))).toBe('host=1; wide=1; secure=1');
    expect(cookies.header(u('https://www.example.com/'))).toBe('wide=1; secure=1');
    expect(cookies.header(u('http://www.example.com/'))).toBe('wide=1');
    expect(cookies.header(u('https://api.example.com/'))).toBe('wide=1'); // the others are host-only
    expect(cookies.header(u('https://other.test/'))).toBe('');
    cookies.store(u('https://api.example.com/'), ['wide=; Domain=example.com; Path=/; Max-Age=0']);
    expect(cookies.header(u('https://www.example.com/'))).toBe('secure=1');
  });

  it("puts the caller's cookies first, and keeps jars apart", () => {
    const a = new FetchCookies(u('http://example.com/'), 'mine=1');
    const b = new FetchCookies(u('http://example.com/'), undefined);
    a.store(u('http://example.com/'), ['theirs=1; Path=/']);
    expect(a.header(u('http://example.com/'))).toBe('mine=1; theirs=1');
    expect(b.header(u('http://example.com/'))).toBe('');
  });
});
