/**
 * Monitor records: what the API accepted, stored as versioned rows of `monitors`
 * (infra/clickhouse/0001_init.sql; ReplacingMergeTree(version), read with FINAL). Created
 * at version 1, `status` `active`; each PATCH (PATCH /v1/monitor/{id}: fields, or `status`
 * `paused` / `active`) writes the whole monitor again at version + 1 (two PATCHes at the same
 * moment: the later write wins, as watches do); deleting writes a version with `deleted = 1`.
 * A monitor written before updates existed is read the same: version 1 or 2, `active`.
 *
 * Reads and the sealed webhook URL as every versioned record has them
 * (pipeline/runtime/store/records.ts): another key's monitor is the same as an unknown id
 * (null, a 404 at the gateway); `activeMonitors` alone reads every tenant, for the frontier's
 * schedule rebuild. The gateway opens the webhook to show the caller its own monitor, the
 * notifier to deliver.
 */
import { randomUUID } from 'node:crypto';
import type { BatchWriter } from '../runtime/store/batch-writer.js';
import { recordReads, webhookSeal } from '../runtime/store/records.js';
import type { Store } from '../runtime/store/store.js';
import type { MonitorStatus } from '../../schemas/api/monitoring.js';

/** The fields the API accepts at creation (schemas/api/monitoring.ts MonitorBody). */
export interface MonitorSpec {
  readonly name: string;
  readonly url: string | null;
  readonly urls: readonly string[];
  readonly intervalMinutes: number;
  readonly goal: string | null;
  readonly webhook: string | null;
}

export interface MonitorRecord extends Omit<MonitorSpec, 'webhook'> {
  /** The webhook URL sealed (see the module doc; `openWebhook`); null without one. */
  readonly sealedWebhook: string | null;
  readonly id: string;
  readonly tenant: string;
  readonly version: number;
  /** `paused`: off the schedule, and POST /run refused, until `active` again. */
  readonly status: MonitorStatus;
  readonly createdAtMs: number;
  readonly updatedAtMs: number;
}

export const newMonitorId = () => `mon_${randomUUID().replace(/-/g, '')}`;

/** The pages a monitor checks: `url`, then `urls`, each once, in that order. */
export function monitorPages(spec: Pick<MonitorSpec, 'url' | 'urls'>): string[] {
  return [...new Set([...(spec.url ? [spec.url] : []), ...spec.urls])];
}

export const intervalMs = (monitor: Pick<MonitorSpec, 'intervalMinutes'>) => monitor.intervalMinutes * 60_000;

const COLUMNS = `tenant, id, version, status, name, url, urls, interval_minutes, goal, webhook,
  toUnixTimestamp64Milli(created_at) AS created_ms, toUnixTimestamp64Milli(updated_at) AS updated_ms`;

const READS = recordReads('monitors', COLUMNS);

/** Monitors by id, any tenant (ids are unique): the frontier reads a tick's due monitors at once. */
const BY_IDS = `SELECT ${COLUMNS} FROM monitors FINAL WHERE id IN {ids:Array(String)} AND deleted = 0`;

interface MonitorRow {
  readonly tenant: string;
  readonly id: string;
  readonly version: string | number;
  readonly status: string;
  readonly name: string;
  readonly url: string | null;
  readonly urls: readonly string[];
  readonly interval_minutes: string | number;
  readonly goal: string | null;
  readonly webhook: string | null;
  readonly created_ms: string | number;
  readonly updated_ms: string | number;
}

function recordOf(row: MonitorRow): MonitorRecord {
  return {
    id: row.id,
    tenant: row.tenant,
    version: Number(row.version),
    status: row.status === 'paused' ? 'paused' : 'active',
    name: row.name,
    url: row.url,
    urls: row.urls,
    intervalMinutes: Number(row.interval_minutes),
    goal: row.goal,
    sealedWebhook: row.webhook,
    createdAtMs: Number(row.created_ms),
    updatedAtMs: Number(row.updated_ms),
  };
}

function rowOf(monitor: MonitorRecord, deleted: boolean): Record<string, unknown> {
  return {
    tenant: monitor.tenant,
    id: monitor.id,
    version: monitor.version,
    name: monitor.name,
    url: monitor.url,
    urls: monitor.urls,
    interval_minutes: monitor.intervalMinutes,
    goal: monitor.goal,
    webhook: monitor.sealedWebhook,
    status: deleted ? 'deleted' : monitor.status,
    deleted: deleted ? 1 : 0,
    created_at: new Date(monitor.createdAtMs),
    updated_at: new Date(monitor.updatedAtMs),
    // The schedule lives in coordination state (schedule.ts); the column keeps the creation time.
    next_check_at: new Date(monitor.createdAtMs),
  };
}

const WEBHOOK = webhookSeal('monitor');

/** The monitor's webhook URL in clear; null without one, or when it was sealed under another server secret. */
export const openWebhook = (serverSecret: string, monitor: Pick<MonitorRecord, 'id' | 'sealedWebhook'>): string | null => WEBHOOK.open(serverSecret, monitor);

/** Stores a new monitor (version 1), its webhook sealed under `serverSecret`; resolves once it landed. */
export async function createMonitor(writer: Pick<BatchWriter, 'write'>, tenant: string, spec: MonitorSpec, nowMs: number, serverSecret: string): Promise<MonitorRecord> {
  const { webhook, ...fields } = spec;
  const id = newMonitorId();
  const sealedWebhook = webhook === null ? null : WEBHOOK.seal(serverSecret, webhook, id);
  const monitor: MonitorRecord = { ...fields, sealedWebhook, id, tenant, version: 1, status: 'active', createdAtMs: nowMs, updatedAtMs: nowMs };
  await writer.write('monitors', [rowOf(monitor, false)]);
  return monitor;
}

/** What a PATCH changes: the fields it names (a webhook left out keeps the sealed one as it is). */
export interface MonitorChanges extends Partial<MonitorSpec> {
  readonly status?: MonitorStatus;
}

/** The monitor with `changes` applied, its webhook not yet sealed: what an update would write. */
export function changedMonitor(monitor: MonitorRecord, changes: MonitorChanges): Omit<MonitorRecord, 'sealedWebhook'> {
  const { webhook: _w, sealedWebhook: _s, ...kept } = { ...monitor, webhook: undefined };
  const named = Object.fromEntries(Object.entries(changes).filter(([key, value]) => key !== 'webhook' && value !== undefined));
  return { ...kept, ...named };
}

/**
 * Writes the monitor with `changes` applied (version + 1); the webhook sealed again only when
 * it is named and differs; resolves once it landed.
 */
export async function updateMonitor(writer: Pick<BatchWriter, 'write'>, monitor: MonitorRecord, changes: MonitorChanges, nowMs: number, serverSecret: string): Promise<MonitorRecord> {
  const { webhook } = changes;
  const kept = webhook === undefined || (webhook !== null && openWebhook(serverSecret, monitor) === webhook);
  const sealedWebhook = kept ? monitor.sealedWebhook : webhook === null ? null : WEBHOOK.seal(serverSecret, webhook, monitor.id);
  const next: MonitorRecord = { ...changedMonitor(monitor, changes), sealedWebhook, version: monitor.version + 1, updatedAtMs: Math.max(nowMs, monitor.updatedAtMs + 1) };
  await writer.write('monitors', [rowOf(next, false)]);
  return next;
}

/** Marks the monitor deleted (a new version); its checks stay until their retention ends. */
export async function deleteMonitor(writer: Pick<BatchWriter, 'write'>, monitor: MonitorRecord, nowMs: number): Promise<void> {
  await writer.write('monitors', [rowOf({ ...monitor, version: monitor.version + 1, updatedAtMs: nowMs }, true)]);
}

/** This tenant's monitor; null when unknown, deleted or another key's. */
export async function readMonitor(store: Pick<Store, 'query'>, tenant: string, id: string): Promise<MonitorRecord | null> {
  const [row] = await store.query<MonitorRow>(READS.byId, { tenant, id });
  return row ? recordOf(row) : null;
}

/** The monitors of these ids that exist and are not deleted, by id (the caller checks each one's tenant). */
export async function readMonitors(store: Pick<Store, 'query'>, ids: readonly string[]): Promise<Map<string, MonitorRecord>> {
  if (ids.length === 0) return new Map();
  const rows = await store.query<MonitorRow>(BY_IDS, { ids });
  return new Map(rows.map((row) => [row.id, recordOf(row)]));
}

export async function listMonitors(store: Pick<Store, 'query'>, tenant: string): Promise<MonitorRecord[]> {
  const rows = await store.query<MonitorRow>(READS.ofTenant, { tenant });
  return rows.map(recordOf);
}

/** Every tenant's monitors not deleted, paused ones too (the frontier's rebuild keeps those off the schedule). */
export async function liveMonitors(store: Pick<Store, 'query'>): Promise<MonitorRecord[]> {
  const rows = await store.query<MonitorRow>(READS.active, {});
  return rows.map(recordOf);
}
