import { hash, randomBytes } from 'node:crypto';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
export const KEY_PREFIX = 'wds_';

function base62(length: number): string {
  // Rejection sampling keeps every character equally likely.
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248 && out.length < length) out += ALPHABET[byte % 62];
    }
  }
  return out;
}

/** A new API key: `wds_` and 40 base62 characters (about 238 bits). */
export function generateKey(): string {
  return `${KEY_PREFIX}${base62(40)}`;
}

export function generateKeyId(): string {
  return `key_${base62(16)}`;
}

/**
 * Keys are random and long, so one fast hash is enough to make a stored copy useless. Every
 * authenticated request hashes its key: the one-shot `crypto.hash` costs less than half of
 * a createHash object.
 */
export function hashKey(secret: string): string {
  return hash('sha256', secret, 'hex');
}

/**
 * What `keys list` shows of a key: `wds_` and the next 8 characters of a generated key, or
 * the first 6 characters of a key the operator chose (API_KEY, at least 16 characters).
 */
export function keyPrefix(secret: string): string {
  return secret.startsWith(KEY_PREFIX) ? secret.slice(0, KEY_PREFIX.length + 8) : secret.slice(0, 6);
}
