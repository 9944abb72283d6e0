import { describe, expect, it } from 'vitest';
import { compileLinearRegex, isLinearRegex } from '../../pipeline/runtime/linear-regex.js';

describe('pipeline/runtime/linear-regex', () => {
  it('matches anywhere in the input, as RegExp.test, in linear time on a backtracking pattern', () => {
    const regex = compileLinearRegex('(a+)+$');
    expect(regex.test(`/${'a'.repeat(20_000)}`)).toBe(true);
    expect(regex.test(`/${'a'.repeat(20_000)}!`)).toBe(false);
    expect(compileLinearRegex('^/docs\\/[a-z]+$').test('/docs/intro')).toBe(true);
  });

  it('refuses what RE2 cannot run: lookaround, backreferences, broken syntax', () => {
    expect(['(?=a)', '(?<!a)b', '(x)\\1', '[', '(unclosed'].filter(isLinearRegex)).toEqual([]);
    expect(() => compileLinearRegex('(?=a)')).toThrow();
    expect(isLinearRegex('(?<name>x)')).toBe(true);
  });

  it('compiles a source once and hands the same pattern back', () => {
    expect(compileLinearRegex('/blog/\\d{4}/')).toBe(compileLinearRegex('/blog/\\d{4}/'));
  });
});
