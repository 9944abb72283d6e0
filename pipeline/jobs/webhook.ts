/**
 * A job's webhook as the gateway stores it with the job record (the state hash field
 * `webhook`, never the store: its headers may hold the receiver's credentials) and the
 * notifier reads it back. The API accepts a bare URL or `{url, headers, metadata, events}`
 * (schemas/api/page-reading.ts Webhook); both are kept as the object, `events` absent meaning
 * every event.
 */
import { WEBHOOK_EVENTS } from '../../schemas/api/page-reading.js';
import type { JobKind } from './record.js';

export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];

export interface JobWebhook {
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly metadata: Readonly<Record<string, unknown>>;
  /** The events to send; null for every one. */
  readonly events: readonly WebhookEvent[] | null;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isEvent = (v: unknown): v is WebhookEvent => typeof v === 'string' && (WEBHOOK_EVENTS as readonly string[]).includes(v);

/** The webhook of a validated request body (a URL string or the object); null when none. */
export function jobWebhookOf(raw: unknown): JobWebhook | null {
  if (typeof raw === 'string') return { url: raw, headers: {}, metadata: {}, events: null };
  if (!isObject(raw) || typeof raw.url !== 'string') return null;
  const headers: Record<string, string> = {};
  if (isObject(raw.headers)) for (const [name, value] of Object.entries(raw.headers)) if (typeof value === 'string') headers[name] = value;
  return {
    url: raw.url,
    headers,
    metadata: isObject(raw.metadata) ? raw.metadata : {},
    events: Array.isArray(raw.events) ? raw.events.filter(isEvent) : null,
  };
}

/** The stored form (JSON) back; null when there is none or it does not read. */
export function parseJobWebhook(json: string): JobWebhook | null {
  if (!json) return null;
  try {
    return jobWebhookOf(JSON.parse(json));
  } catch {
    return null;
  }
}

/** `crawl.page`, `batch_scrape.completed`, …: the Firecrawl v1 event names. */
export function webhookEventName(kind: JobKind, event: WebhookEvent): string {
  return `${kind === 'batch' ? 'batch_scrape' : 'crawl'}.${event}`;
}

/** Whether the webhook asked for this event. */
export function wantsEvent(webhook: JobWebhook, event: WebhookEvent): boolean {
  return webhook.events === null || webhook.events.includes(event);
}
