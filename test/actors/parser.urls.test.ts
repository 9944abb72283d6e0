/**
 * actors/parser/formats/urls.ts linkUrl: what the `links` format and the crawl's frontier get
 * of an `href`, compared with what the WHATWG URL setters give.
 */
import { describe, expect, it } from 'vitest';
import { linkUrl } from '../../actors/parser/formats/urls.js';

/** The plain statement of the rule: resolve, then clear fragment, user and password with the setters. */
function bySetters(ref: string, base: string): string | null {
  const trimmed = ref.trim();
  if (!trimmed || trimmed.startsWith('#')) return null;
  const url = URL.parse(trimmed, base);
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) return null;
  url.hash = '';
  url.username = '';
  url.password = '';
  return url.href;
}

describe('actors/parser/formats/urls linkUrl', () => {
  const base = 'https://example.org/dir/page.html?x=1#top';

  it('resolves against the page, keeps http(s), drops the fragment, the user and the password', () => {
    expect(linkUrl('other.html#part', base)).toBe('https://example.org/dir/other.html');
    expect(linkUrl('  /a?b=c#  ', base)).toBe('https://example.org/a?b=c');
    expect(linkUrl('https://user:pw@example.com/x#y', base)).toBe('https://example.com/x');
    expect(linkUrl('http://user@example.com:8080/', base)).toBe('http://example.com:8080/');
    expect(linkUrl('#top', base)).toBeNull();
    expect(linkUrl('mailto:a@example.org', base)).toBeNull();
    expect(linkUrl('javascript:void(0)', base)).toBeNull();
    expect(linkUrl('http://[::1', base)).toBeNull();
  });

  it('gives what the URL setters give, for fragments, encoded `#` and user info anywhere in the reference', () => {
    const refs = [
      'a#b#c',
      'a%23b#c',
      '/p?q=%23#f',
      '/p?q=#',
      'x#',
      '//user:pa%23ss@host.example/p#f',
      'https://u:@h.example/',
      'https://:p@h.example/?#',
      '/path with spaces/#frag ment',
      'https://h.example/ü/ö?ä#ß',
      '?only=query#and-fragment',
      '../up/../../down#x',
    ];
    for (const ref of refs) expect(linkUrl(ref, base), ref).toBe(bySetters(ref, base));
  });
});
