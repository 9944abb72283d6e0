/**
 * A caller's model key sealed for its trip on an event (gateway → extractor pool): the key
 * must cross the bus, and whatever reads the topic, a dead-letter queue or a log of events
 * must not learn it.
 *
 * AES-256-GCM with a key derived by HKDF-SHA256 from the server secret (the same on every
 * process; WEBHOOK_SECRET in distributed mode), a random 12-byte IV per seal, the version as
 * additional data (plus an optional context, e.g. the request id, so a sealed key copied onto
 * another event does not open). The form is compact and URL-safe: `v1.<iv>.<ciphertext+tag>`
 * in base64url. Opening anything altered, truncated, sealed under another secret or another
 * context throws `bad_request` without saying more.
 */
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { AppError } from './errors.js';

const VERSION = 'v1';
const SALT = 'web-data-service/model-key-seal';
const INFO = 'aes-256-gcm v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;

function sealingKey(serverSecret: string): Buffer {
  if (serverSecret.length === 0) throw new Error('sealing needs a server secret');
  return Buffer.from(hkdfSync('sha256', serverSecret, SALT, INFO, 32));
}

function additionalData(context: string): Buffer {
  return Buffer.from(`${VERSION}\u0000${context}`, 'utf8');
}

export function sealSecret(serverSecret: string, plaintext: string, context = ''): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', sealingKey(serverSecret), iv);
  cipher.setAAD(additionalData(context));
  const sealed = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final(), cipher.getAuthTag()]);
  return `${VERSION}.${iv.toString('base64url')}.${sealed.toString('base64url')}`;
}

export function openSealed(serverSecret: string, sealed: string, context = ''): string {
  const parts = sealed.split('.');
  const iv = parts.length === 3 && parts[0] === VERSION ? Buffer.from(parts[1] ?? '', 'base64url') : null;
  const data = iv ? Buffer.from(parts[2] ?? '', 'base64url') : null;
  if (!iv || !data || iv.length !== IV_BYTES || data.length < TAG_BYTES) throw unopenable();
  try {
    const decipher = createDecipheriv('aes-256-gcm', sealingKey(serverSecret), iv);
    decipher.setAAD(additionalData(context));
    decipher.setAuthTag(data.subarray(data.length - TAG_BYTES));
    return Buffer.concat([decipher.update(data.subarray(0, data.length - TAG_BYTES)), decipher.final()]).toString('utf8');
  } catch {
    throw unopenable();
  }
}

function unopenable(): AppError {
  return new AppError('bad_request', 'the sealed model key cannot be opened (altered, or sealed by another server secret)');
}
