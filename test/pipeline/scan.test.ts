import { describe, expect, it } from 'vitest';
import { isSpace, nextStop, replaceThroughLast, skipSpaces, throughLast } from '../../pipeline/runtime/scan.js';

describe('pipeline/runtime/scan', () => {
  /** A stop pattern whose searches are counted. */
  const counted = (pattern: RegExp) => {
    const searches = { count: 0 };
    const exec = pattern.exec.bind(pattern);
    pattern.exec = (text: string) => {
      searches.count++;
      return exec(text);
    };
    return { pattern, searches };
  };

  it('finds the next stop at or after each position, searching once per stretch while positions rise', () => {
    const { pattern, searches } = counted(/[\]\n]/g);
    const next = nextStop('ab]cd\nef', pattern);
    expect([0, 1, 2, 3, 4, 5, 6, 7].map(next)).toEqual([2, 2, 2, 5, 5, 5, 8, 8]);
    expect(searches.count).toBe(3);
    // A position back before the stretch last read is searched again.
    expect(next(0)).toBe(2);
    expect(searches.count).toBe(4);
    expect(() => nextStop('x', /x/)).toThrow(/must be global/);
  });

  it('answers a million openings without a stop in one search', () => {
    const text = '['.repeat(1_000_000);
    const { pattern, searches } = counted(/\]/g);
    const next = nextStop(text, pattern);
    for (let at = 0; at < text.length; at++) expect(next(at)).toBe(text.length);
    expect(searches.count).toBe(1);
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
