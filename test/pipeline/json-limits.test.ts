import { describe, expect, it } from 'vitest';
import { depthOver, inspectJson, isWellFormedText } from '../../pipeline/runtime/json-limits.js';

/** `depth` arrays nested in one another, the innermost holding `inner`. */
function nestedArrays(depth: number, inner: unknown = 1): unknown {
  let value: unknown = inner;
  for (let i = 0; i < depth; i++) value = [value];
  return value;
}

/** `depth` objects nested under the key `a`. */
function nestedObjects(depth: number): unknown {
  let value: unknown = 'leaf';
  for (let i = 0; i < depth; i++) value = { a: value };
  return value;
}

describe('pipeline/runtime/json-limits', () => {
  it('counts containers: a scalar is 0 deep, [] and {} are 1', () => {
    expect(depthOver('x', 0)).toBe(false);
    expect(depthOver([], 0)).toBe(true);
    expect(depthOver([], 1)).toBe(false);
    expect(depthOver({ a: [] }, 1)).toBe(true);
    expect(depthOver({ a: [] }, 2)).toBe(false);
    expect(depthOver(nestedArrays(64), 64)).toBe(false);
    expect(depthOver(nestedArrays(65), 64)).toBe(true);
  });

  it('walks any depth without recursion (where JSON.stringify overflows the stack)', () => {
    const deep = nestedArrays(200_000);
    expect(() => JSON.stringify(deep)).toThrow(RangeError);
    expect(depthOver(deep, 64)).toBe(true);
    expect(inspectJson(deep, 64)).toEqual([{ kind: 'too_deep', path: Array(64).fill(0), inKey: false }]);
    expect(inspectJson(nestedObjects(100_000), 3)).toEqual([{ kind: 'too_deep', path: ['a', 'a', 'a'], inKey: false }]);
  });

  it('finds lone surrogates in values and keys, at their paths, and accepts pairs', () => {
    expect(isWellFormedText('plain, ünïcödé, 😀')).toBe(true);
    expect(isWellFormedText('\ud83d\ude00')).toBe(true);
    for (const bad of ['\ud800', '\ud800x', 'x\udc00', '\udc00\ud800', 'ok \ud83d']) expect(isWellFormedText(bad), JSON.stringify(bad)).toBe(false);
    const value = { name: '\ud800x', list: ['ok', { ['k\udfff']: 'v', fine: '😀' }], pair: '\ud83d\ude00' };
    expect(inspectJson(value, 64)).toEqual([
      { kind: 'ill_formed', path: ['name'], inKey: false },
      { kind: 'ill_formed', path: ['list', 1, 'k\udfff'], inKey: true },
    ]);
    expect(inspectJson('\udc00', 64)).toEqual([{ kind: 'ill_formed', path: [], inKey: false }]);
    expect(inspectJson({ a: 1, b: [true, null, 'x'] }, 64)).toEqual([]);
  });

  it('reads a flat object or array (the shallow first pass) as the full walk does', () => {
    expect(inspectJson({ url: 'https://example.com', limit: 0, on: true, none: null }, 64)).toEqual([]);
    expect(inspectJson(['a', 1, null], 64)).toEqual([]);
    expect(inspectJson({ ok: 'x', ['\ud800']: 1 }, 64)).toEqual([{ kind: 'ill_formed', path: ['\ud800'], inKey: true }]);
    expect(inspectJson(['x', '\udc00'], 64)).toEqual([{ kind: 'ill_formed', path: [1], inKey: false }]);
    expect(inspectJson({}, 0)).toEqual([{ kind: 'too_deep', path: [], inKey: false }]);
    expect(inspectJson({ a: 1 }, 1)).toEqual([]);
    expect(inspectJson({ a: {} }, 1)).toEqual([{ kind: 'too_deep', path: ['a'], inKey: false }]);
  });

  it('stops at `limit` findings', () => {
    const many = Array.from({ length: 50 }, () => '\ud800');
    expect(inspectJson(many, 64)).toHaveLength(10);
    expect(inspectJson(many, 64, 3)).toHaveLength(3);
  });
});
