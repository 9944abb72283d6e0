import { describe, expect, it } from 'vitest';
import { parseJsonObject } from '../../pipeline/runtime/json.js';

describe('pipeline/runtime/json parseJsonObject', () => {
  it('reads an object, and an empty string as {}', () => {
    expect(parseJsonObject('{"formats":["markdown"],"mobile":true}')).toEqual({ formats: ['markdown'], mobile: true });
    expect(parseJsonObject('')).toEqual({});
  });

  it('refuses what is not a JSON object', () => {
    for (const text of ['[1,2]', 'null', '"text"', '42', 'true', '{"unterminated":', 'not json']) {
      expect(parseJsonObject(text), text).toBeNull();
    }
  });
});
