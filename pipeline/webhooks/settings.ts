/**
 * The settings of webhook delivery (the notifier, actors/notifier/): attempts, backoff and
 * each attempt's timeout, for jobs', monitors' and watches' webhooks alike. The server secret
 * they are signed with (WEBHOOK_SECRET) is the runtime's: it also seals secrets on events.
 * This family's part of the one settings table: pipeline/service/settings.ts assembles the
 * parts, pipeline/runtime/config.ts parses them (`satisfies SettingsTable` checks each entry
 * here); README.md's "Configuration" lists them.
 */
import type { ConfigOf, SettingsTable } from '../runtime/config.js';

export const WEBHOOK_SETTINGS = {
  webhookAttempts: {
    env: 'WEBHOOK_ATTEMPTS',
    type: 'integer',
    default: 5,
    min: 1,
    max: 20,
    description: 'Attempts per webhook delivery (the first included); timeouts, connection errors, 408, 429 and 5xx are retried, other answers are not.',
  },
  webhookRetryBaseMs: {
    env: 'WEBHOOK_RETRY_BASE_MS',
    type: 'integer',
    default: 1000,
    min: 0,
    max: 600000,
    description: 'Backoff before the second attempt of a webhook delivery; it doubles each attempt (1 s, 2 s, 4 s, 8 s), each delay between half and all of it (jitter).',
  },
  webhookRetryMaxMs: {
    env: 'WEBHOOK_RETRY_MAX_MS',
    type: 'integer',
    default: 60000,
    min: 0,
    max: 600000,
    description: 'Longest backoff between two attempts of a webhook delivery.',
  },
  webhookTimeoutMs: {
    env: 'WEBHOOK_TIMEOUT_MS',
    type: 'integer',
    default: 10000,
    min: 100,
    max: 120000,
    description: 'How long one webhook attempt waits for the receiver to answer before it counts as a timeout (and is retried).',
  },
} as const satisfies SettingsTable;

/** The values of this part, as pipeline/runtime/config.ts parses them. */
export type WebhooksConfig = ConfigOf<typeof WEBHOOK_SETTINGS>;
