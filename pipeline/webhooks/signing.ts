/**
 * Webhook signatures (Stripe-style). Each key has its own signing secret, derived from the
 * deployment's server secret (WEBHOOK_SECRET, else DATA_DIR/webhook-secret: secret.ts) as
 * `whsec_` + hex(HMAC-SHA256(serverSecret, "webhook:" + keyId)): nothing is stored per key,
 * so both key registries serve it unchanged, and `npm run keys -- webhook-secret <id>` prints it.
 *
 * A delivery carries `X-WDS-Signature: t=<unix seconds>,v1=<hex>` where
 * `hex = HMAC-SHA256(secret, "<t>.<raw body>")`, the secret used as its UTF-8 text. The
 * timestamp is signed with the body, so a receiver that refuses an old `t` (5 minutes, say)
 * refuses a replayed delivery. Each attempt is signed afresh (a new `t`, the same body).
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export const SIGNATURE_HEADER = 'x-wds-signature';
export const WEBHOOK_SECRET_PREFIX = 'whsec_';

/** The webhook signing secret of one key. */
export function keyWebhookSecret(serverSecret: string, keyId: string): string {
  return `${WEBHOOK_SECRET_PREFIX}${createHmac('sha256', serverSecret).update(`webhook:${keyId}`).digest('hex')}`;
}

/** hex(HMAC-SHA256(secret, "<t>.<body>")). */
export function signatureOf(secret: string, timestampSeconds: number, body: string): string {
  return createHmac('sha256', secret).update(`${timestampSeconds}.${body}`).digest('hex');
}

/** The `X-WDS-Signature` value for a body sent at `timestampSeconds`. */
export function signatureHeader(secret: string, body: string, timestampSeconds = Math.floor(Date.now() / 1000)): string {
  return `t=${timestampSeconds},v1=${signatureOf(secret, timestampSeconds, body)}`;
}

/**
 * Firecrawl's header (`X-Firecrawl-Signature: sha256=<hex>`, hex = HMAC-SHA256(secret, raw
 * body)), sent beside ours on every delivery so that receivers written for Firecrawl verify
 * ours unchanged (docs/firecrawl.md). It signs no timestamp: a receiver that must refuse
 * replays checks `X-WDS-Signature`.
 */
export const FIRECRAWL_SIGNATURE_HEADER = 'x-firecrawl-signature';

/** The `X-Firecrawl-Signature` value of a body. */
export function firecrawlSignatureHeader(secret: string, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

/**
 * Whether a signature header matches the raw body and is at most `toleranceSeconds` old (or
 * in the future): what a receiver checks. Compares in constant time.
 */
export function verifySignature(secret: string, body: string, header: string, toleranceSeconds = 300, nowSeconds = Math.floor(Date.now() / 1000)): boolean {
  const parts = new Map(header.split(',').map((p) => p.trim().split('=', 2) as [string, string]));
  const t = Number(parts.get('t'));
  const given = parts.get('v1') ?? '';
  if (!Number.isSafeInteger(t) || Math.abs(nowSeconds - t) > toleranceSeconds || !/^[0-9a-f]{64}$/.test(given)) return false;
  return timingSafeEqual(Buffer.from(given, 'hex'), Buffer.from(signatureOf(secret, t, body), 'hex'));
}
