import { describe, expect, it } from 'vitest';
import { isSpace, nextStop, replaceThroughLast, skipSpaces, throughLast } from '../../pipeline/runtime/scan.js';

describe('pipeline/runtime/scan', () => {
  it('finds the next stop at or after each position, reading each character once while positions rise', () => {
    const text = 'ab]cd]ef';
    let reads = 0;
    const next = nextStop(text, (c) => {
      reads++;
      return c === ']';
    });
    expect([0, 1, 2, 3, 4, 5, 6, 7].map(next)).toEqual([2, 2, 2, 5, 5, 5, 8, 8]);
    expect(reads).toBe(text.length);
    // A position back before the stretch last read is read again.
    expect(next(0)).toBe(2);
  });

  it('answers a million openings without a stop in one read', () => {
    const text = '['.repeat(1_000_000);
    let reads = 0;
    const next = nextStop(text, (c) => {
      reads++;
      return c === ']';
    });
    for (let at = 0; at < text.length; at++) expect(next(at)).toBe(text.length);
    expect(reads).toBe(text.length);
  });

  it('skips whitespace as \\s reads it', () => {
    expect(skipSpaces('a \t\n\u00a0\u2028b', 1)).toBe(6);
    expect(skipSpaces('a  ', 1)).toBe(3);
    expect(['x', ' ', '\u3000', '\ufeff', '_'].map(isSpace)).toEqual([false, true, true, true, false]);
  });

  it('replaces only up to the last closing character, as the pattern would, and keeps the rest', () => {
    const tags = /<[^>]*>/g;
    for (const text of ['a<b>c<d', '<x><y>', 'no tags', '<<<', 'a<b>c>d<e']) {
      expect(replaceThroughLast(text, '>', tags, ' ')).toBe(text.replace(tags, ' '));
    }
    expect(throughLast('a>b>c', '>')).toBe('a>b>');
    expect(throughLast('abc', '>')).toBe('');
    const unclosed = '<'.repeat(500_000);
    expect(replaceThroughLast(`<a>${unclosed}`, '>', tags, ' ')).toBe(` ${unclosed}`);
  });
});
