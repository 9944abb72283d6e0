/**
 * The deployment's webhook server secret, from which each key's signing secret is derived
 * (signing.ts): WEBHOOK_SECRET when set, else `DATA_DIR/webhook-secret`, generated once
 * (32 random bytes, hex, file mode 0600) by whichever process needs it first. Never logged.
 * Distributed deployments set WEBHOOK_SECRET: processes on different machines do not share
 * a DATA_DIR.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RuntimeConfig } from '../runtime/config.js';

export const SERVER_SECRET_FILE = 'webhook-secret';

export function serverWebhookSecret(config: Pick<RuntimeConfig, 'webhookSecret' | 'dataDir'>): string {
  if (config.webhookSecret !== null) return config.webhookSecret;
  const path = join(config.dataDir, SERVER_SECRET_FILE);
  const existing = readSecret(path);
  if (existing) return existing;
  mkdirSync(config.dataDir, { recursive: true });
  try {
    // `wx`: two processes starting at once keep the first one's secret.
    writeFileSync(path, `${randomBytes(32).toString('hex')}\n`, { mode: 0o600, flag: 'wx' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  const created = readSecret(path);
  if (!created) throw new Error(`could not read the webhook secret file ${path}`);
  return created;
}

function readSecret(path: string): string | null {
  try {
    const text = readFileSync(path, 'utf8').trim();
    return text.length >= 32 ? text : null;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}
