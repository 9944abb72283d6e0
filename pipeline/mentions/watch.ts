/**
 * Mention watch records: what the API accepted, stored as versioned rows of `watches`
 * (infra/clickhouse/0001_init.sql; ReplacingMergeTree(version), read with FINAL). Created at
 * version 1; each PATCH writes the whole watch again at version + 1 (two PATCHes at the same
 * moment: the later write wins, field by field as each was sent); deleting writes a version
 * with `deleted = 1`.
 *
 * The watch fields live in `params` (JSON), the webhook URL there sealed. Reads and the seal
 * as every versioned record has them (pipeline/runtime/store/records.ts): another key's watch
 * is the same as an unknown id (null, a 404 at the gateway); `activeWatches` alone reads every
 * tenant, for the frontier's rebuild.
 */
import { randomUUID } from 'node:crypto';
import { MENTION_PLATFORMS } from '../../schemas/api/monitoring.js';
import type { Platform } from '../clients/social/types.js';
import { parseJsonObject } from '../runtime/json.js';
import type { BatchWriter } from '../runtime/store/batch-writer.js';
import { recordReads, webhookSeal } from '../runtime/store/records.js';
import type { Store } from '../runtime/store/store.js';

/** The watch fields (schemas/api/monitoring.ts WatchBody), defaults filled in. */
export interface WatchSpec {
  readonly name: string;
  readonly keywords: readonly string[];
  readonly excludeKeywords: readonly string[];
  readonly competitors: readonly string[];
  readonly platforms: readonly Platform[];
  readonly languages: readonly string[] | null;
  readonly context: string | null;
  readonly intervalMinutes: number;
  readonly webhook: string | null;
  readonly feeds: readonly string[];
  readonly sites: readonly string[];
}

export interface WatchRecord extends Omit<WatchSpec, 'webhook'> {
  readonly id: string;
  readonly tenant: string;
  readonly version: number;
  /** The webhook URL sealed (`openWatchWebhook`); null without one. */
  readonly sealedWebhook: string | null;
  readonly createdAtMs: number;
  readonly updatedAtMs: number;
}

export const newWatchId = () => `wat_${randomUUID().replace(/-/g, '')}`;
export const DEFAULT_INTERVAL_MINUTES = 60;

/** A body (create, test, or a watch's fields merged with a PATCH) with the defaults filled in. */
export function watchSpecOf(body: Record<string, unknown>): WatchSpec {
  const strings = (value: unknown): string[] => (Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : []);
  const platforms = strings(body.platforms).filter((p): p is Platform => (MENTION_PLATFORMS as readonly string[]).includes(p));
  const languages = Array.isArray(body.languages) && body.languages.length > 0 ? strings(body.languages) : null;
  return {
    name: typeof body.name === 'string' ? body.name : '',
    keywords: strings(body.keywords),
    excludeKeywords: strings(body.excludeKeywords),
    competitors: strings(body.competitors),
    platforms: platforms.length > 0 ? platforms : [...MENTION_PLATFORMS],
    languages,
    context: typeof body.context === 'string' && body.context.trim() !== '' ? body.context : null,
    intervalMinutes: typeof body.intervalMinutes === 'number' ? body.intervalMinutes : DEFAULT_INTERVAL_MINUTES,
    webhook: typeof body.webhook === 'string' ? body.webhook : null,
    feeds: strings(body.feeds),
    sites: strings(body.sites),
  };
}

export const watchIntervalMs = (watch: Pick<WatchSpec, 'intervalMinutes'>) => watch.intervalMinutes * 60_000;

const COLUMNS = `tenant, id, version, name, params,
  toUnixTimestamp64Milli(created_at) AS created_ms, toUnixTimestamp64Milli(updated_at) AS updated_ms`;

const READS = recordReads('watches', COLUMNS);

interface WatchRow {
  readonly tenant: string;
  readonly id: string;
  readonly version: string | number;
  readonly name: string;
  readonly params: string;
  readonly created_ms: string | number;
  readonly updated_ms: string | number;
}

function recordOf(row: WatchRow): WatchRecord {
  const params = parseJsonObject(row.params) ?? {};
  const { webhook: _sealed, ...spec } = watchSpecOf({ ...params, name: row.name, webhook: null });
  return {
    ...spec,
    id: row.id,
    tenant: row.tenant,
    version: Number(row.version),
    sealedWebhook: typeof params.webhook === 'string' ? params.webhook : null,
    createdAtMs: Number(row.created_ms),
    updatedAtMs: Number(row.updated_ms),
  };
}

function rowOf(watch: WatchRecord, deleted: boolean): Record<string, unknown> {
  const { id, tenant, version, sealedWebhook, createdAtMs, updatedAtMs, name, ...fields } = watch;
  return {
    tenant,
    id,
    version,
    name,
    params: JSON.stringify({ ...fields, webhook: sealedWebhook }),
    status: deleted ? 'deleted' : 'active',
    deleted: deleted ? 1 : 0,
    created_at: new Date(createdAtMs),
    updated_at: new Date(updatedAtMs),
    // The schedule lives in coordination state and collections in watch_collections.
    last_run_at: new Date(createdAtMs),
  };
}

const WEBHOOK = webhookSeal('watch');

/** The watch's webhook URL in clear; null without one, or when it was sealed under another server secret. */
export const openWatchWebhook = (serverSecret: string, watch: Pick<WatchRecord, 'id' | 'sealedWebhook'>): string | null => WEBHOOK.open(serverSecret, watch);

/** Stores a new watch (version 1); resolves once it landed. */
export async function createWatch(writer: Pick<BatchWriter, 'write'>, tenant: string, spec: WatchSpec, nowMs: number, serverSecret: string): Promise<WatchRecord> {
  const { webhook, ...fields } = spec;
  const id = newWatchId();
  const sealedWebhook = webhook === null ? null : WEBHOOK.seal(serverSecret, webhook, id);
  const watch: WatchRecord = { ...fields, id, tenant, version: 1, sealedWebhook, createdAtMs: nowMs, updatedAtMs: nowMs };
  await writer.write('watches', [rowOf(watch, false)]);
  return watch;
}

/** Writes the watch with `spec` as its fields (version + 1); the webhook sealed again when it changed. */
export async function updateWatch(writer: Pick<BatchWriter, 'write'>, watch: WatchRecord, spec: WatchSpec, nowMs: number, serverSecret: string): Promise<WatchRecord> {
  const { webhook, ...fields } = spec;
  const same = webhook !== null && openWatchWebhook(serverSecret, watch) === webhook;
  const sealedWebhook = webhook === null ? null : same ? watch.sealedWebhook : WEBHOOK.seal(serverSecret, webhook, watch.id);
  const next: WatchRecord = { ...watch, ...fields, sealedWebhook, version: watch.version + 1, updatedAtMs: Math.max(nowMs, watch.updatedAtMs + 1) };
  await writer.write('watches', [rowOf(next, false)]);
  return next;
}

/** Marks the watch deleted (a new version); its mentions stay until deleted with the key's data. */
export async function deleteWatch(writer: Pick<BatchWriter, 'write'>, watch: WatchRecord, nowMs: number): Promise<void> {
  await writer.write('watches', [rowOf({ ...watch, version: watch.version + 1, updatedAtMs: nowMs }, true)]);
}

/** This tenant's watch; null when unknown, deleted or another key's. */
export async function readWatch(store: Pick<Store, 'query'>, tenant: string, id: string): Promise<WatchRecord | null> {
  const [row] = await store.query<WatchRow>(READS.byId, { tenant, id });
  return row ? recordOf(row) : null;
}

export async function listWatches(store: Pick<Store, 'query'>, tenant: string): Promise<WatchRecord[]> {
  return (await store.query<WatchRow>(READS.ofTenant, { tenant })).map(recordOf);
}

export async function activeWatches(store: Pick<Store, 'query'>): Promise<WatchRecord[]> {
  return (await store.query<WatchRow>(READS.active, {})).map(recordOf);
}

/** The watch's fields as a spec (its webhook opened), to merge a PATCH into. */
export function specOfRecord(watch: WatchRecord, serverSecret: string): WatchSpec {
  const { id: _id, tenant: _t, version: _v, sealedWebhook: _s, createdAtMs: _c, updatedAtMs: _u, ...fields } = watch;
  return { ...fields, webhook: openWatchWebhook(serverSecret, watch) };
}
