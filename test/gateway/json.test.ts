/**
 * gateway/json.ts and the 422 body built with it: the bytes JSON.stringify writes, for
 * every kind of detail the validator makes and for text that needs escaping.
 */
import { describe, expect, it } from 'vitest';
import { jsonString, locJson, tenthsJson } from '../../gateway/json.js';
import { validationBody } from '../../gateway/replies.js';
import type { ValidationDetail } from '../../gateway/validation.js';

const STRINGS = ['', 'plain', 'a "quoted" word', 'back\\slash', 'new\nline\ttab', '\u0000\u001f\u007f', 'ünïcödé', '😀', '\ud800 lone', '</script>', ' ~'];

describe('gateway/json', () => {
  it('writes strings as JSON.stringify does', () => {
    for (const s of STRINGS) expect(jsonString(s)).toBe(JSON.stringify(s));
    for (let c = 0; c < 0x800; c += 1) expect(jsonString(`x${String.fromCharCode(c)}y`)).toBe(JSON.stringify(`x${String.fromCharCode(c)}y`));
    // Short strings are checked in a loop, long ones by a regular expression: both sides of the cut.
    for (const length of [47, 48, 49, 200]) {
      for (const c of [0x1f, 0x20, 0x22, 0x5c, 0x7e, 0x7f, 0xe9, 0xd800]) {
        const s = `${'a'.repeat(length - 1)}${String.fromCharCode(c)}`;
        expect(jsonString(s)).toBe(JSON.stringify(s));
        expect(jsonString(s.split('').reverse().join(''))).toBe(JSON.stringify(s.split('').reverse().join('')));
      }
    }
  });

  it('writes a loc as JSON.stringify does, escaped field names and numbers included', () => {
    const locs: (string | number)[][] = [
      [],
      ['body', 'limit'],
      ['body', 'scrapeOptions', 'actions', 3, 'selector'],
      ['body', 0, -0, 1e21, 2 ** 53, Infinity, NaN],
      STRINGS,
    ];
    for (const loc of locs) expect(locJson(loc)).toBe(JSON.stringify(loc));
  });

  it('writes the 422 body as JSON.stringify({detail}) does', () => {
    const details: ValidationDetail[] = [
      { loc: ['body', 'limit'], msg: 'must be >= 1', type: 'greater_than_equal' },
      { loc: ['body', 'url'], msg: 'must be an absolute "http" or "https" URL', type: 'url_invalid' },
      { loc: ['query', 'q\u00e9', 7], msg: 'must be one of "a", "b"', type: 'enum' },
      { loc: ['body', 'we"ird\\key\n'], msg: 'unknown type "x\ty"', type: 'union_tag_invalid' },
    ];
    expect(validationBody([])).toBe(JSON.stringify({ detail: [] }));
    expect(validationBody(details.slice(0, 1))).toBe(JSON.stringify({ detail: details.slice(0, 1) }));
    expect(validationBody(details)).toBe(JSON.stringify({ detail: details }));
  });

  it('writes tenths as JSON.stringify writes tenths / 10 rounded to a tenth', () => {
    const check = (t: number) => expect(tenthsJson(t)).toBe(JSON.stringify(Math.round(t) / 10));
    for (let t = 0; t < 20_000; t += 1) check(t);
    for (let t = 1e6; t < 1e15; t = t * 3 + 7) check(t);
  });
});
