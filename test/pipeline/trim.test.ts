import { describe, expect, it } from 'vitest';
import { trimEndOf, trimStartOf } from '../../pipeline/runtime/trim.js';

describe('pipeline/runtime/trim', () => {
  it('trims a run of the given characters from the end or the start, as the regular expression would', () => {
    expect(trimEndOf('example.com...', '.')).toBe('example.com');
    expect(trimEndOf('Hello!?.', '.,;:!?')).toBe('Hello');
    expect(trimEndOf('...', '.')).toBe('');
    expect(trimEndOf('', '.')).toBe('');
    expect(trimStartOf('//path/', '/')).toBe('path/');
    for (const text of ['a.b..', '..', 'x', 'a,.;b!?']) {
      expect(trimEndOf(text, '.,;!?')).toBe(text.replace(/[.,;!?]+$/, ''));
      expect(trimStartOf(text, '.,;!?')).toBe(text.replace(/^[.,;!?]+/, ''));
    }
  });

  it('hands the same string back when there is nothing to trim', () => {
    const text = 'nothing to trim';
    expect(trimEndOf(text, '.')).toBe(text);
    expect(trimStartOf(text, '.')).toBe(text);
  });

  it('walks a long inner run once: a million dots inside, answered (the regular expression is quadratic there)', () => {
    const text = `a${'.'.repeat(1_000_000)}b.`;
    expect(trimEndOf(text, '.')).toBe(text.slice(0, -1));
    expect(trimStartOf(text, '.')).toBe(text);
  });
});
