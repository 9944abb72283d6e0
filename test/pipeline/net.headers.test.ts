import { describe, expect, it } from 'vitest';
import { isReservedHeader, mergeHeaders } from '../../pipeline/runtime/net/headers.js';

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
