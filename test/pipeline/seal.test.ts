/**
 * pipeline/runtime/seal: a caller's model key sealed for its trip on an event opens
 * with the same server secret (and context) only; the sealed form shows nothing of the key,
 * differs every time, and anything altered is refused with `bad_request`.
 */
import { describe, expect, it } from 'vitest';
import { openSealed, sealSecret } from '../../pipeline/runtime/seal.js';
import { AppError } from '../../pipeline/runtime/errors.js';

const SECRET = 'server-secret-0123456789abcdef0123456789abcdef';
const KEY = 'sk-proj-AbCdEf0123456789_caller-key';

function refused(fn: () => unknown): AppError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    return error as AppError;
  }
  throw new Error('expected a refusal');
}

describe('pipeline/runtime/seal', () => {
  it('round-trips, in the compact form v1.<iv>.<ciphertext+tag>, URL-safe', () => {
    const sealed = sealSecret(SECRET, KEY);
    expect(sealed).toMatch(/^v1\.[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]+$/);
    expect(openSealed(SECRET, sealed)).toBe(KEY);
    expect(openSealed(SECRET, sealSecret(SECRET, ''))).toBe('');
    expect(openSealed(SECRET, sealSecret(SECRET, 'ключ 🔑'))).toBe('ключ 🔑');
  });

  it('shows nothing of the key: not in clear, not in base64, and a fresh IV every time', () => {
    const a = sealSecret(SECRET, KEY);
    const b = sealSecret(SECRET, KEY);
    expect(a).not.toBe(b);
    for (const sealed of [a, b]) {
      for (const form of [KEY, Buffer.from(KEY).toString('base64'), Buffer.from(KEY).toString('base64url'), KEY.slice(8, 24)]) {
        expect(sealed).not.toContain(form);
      }
    }
  });

  it('refuses another server secret, another context, and any altered byte', () => {
    const sealed = sealSecret(SECRET, KEY, 'req-1');
    expect(openSealed(SECRET, sealed, 'req-1')).toBe(KEY);
    expect(refused(() => openSealed(`${SECRET}x`, sealed, 'req-1')).code).toBe('bad_request');
    expect(refused(() => openSealed(SECRET, sealed, 'req-2')).code).toBe('bad_request');
    expect(refused(() => openSealed(SECRET, sealed)).code).toBe('bad_request');
    const [version, iv, data] = sealed.split('.') as [string, string, string];
    const flip = (s: string, i: number) => s.slice(0, i) + (s[i] === 'A' ? 'B' : 'A') + s.slice(i + 1);
    for (const altered of [`${version}.${flip(iv, 3)}.${data}`, `${version}.${iv}.${flip(data, 0)}`, `${version}.${iv}.${flip(data, data.length - 2)}`, `v2.${iv}.${data}`, `${version}.${iv}.${data.slice(0, 10)}`, `${version}.${iv}`, '', 'v1..']) {
      const error = refused(() => openSealed(SECRET, altered, 'req-1'));
      expect(error.code).toBe('bad_request');
      expect(error.message).not.toContain(KEY);
    }
  });
});
