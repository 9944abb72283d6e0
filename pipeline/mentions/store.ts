/**
 * Stored mentions (`mentions`, 0001 + 0007; versioned, read with FINAL) and their status
 * history (`mention_status_changes`).
 *
 * - A mention is written once, at version 1, status `new`, when the classifier stores a
 *   collection's posts; a post already stored for the watch (same id: found.ts mentionId) is
 *   not written again, so a status a person set is never reset by a later collection.
 * - PATCH /v1/mentions/{id} writes the mention again at version + 1 with the new status (any
 *   status to any other) and appends a history row (from, to, when).
 * - Lists are newest found first (found_at, then id, both descending), paged by an opaque
 *   cursor naming the last mention returned; every filter of GET /v1/mentions applies in SQL.
 *   A deleted watch's mentions stay listed (a person may still be working through them).
 *
 * Every read names the tenant: another key's mention is the same as an unknown id.
 */
import type { MentionCategory, MentionStatus } from '../../schemas/api/monitoring.js';
import type { BatchWriter } from '../runtime/store/batch-writer.js';
import type { Store } from '../runtime/store/store.js';
import type { FoundMention } from './found.js';

export type { MentionCategory, MentionStatus };

export interface Mention {
  readonly id: string;
  readonly watchId: string;
  readonly collectionId: string;
  readonly platform: string;
  readonly externalId: string;
  readonly url: string;
  readonly author: string | null;
  readonly title: string | null;
  readonly text: string;
  readonly lang: string | null;
  readonly matched: readonly string[];
  readonly category: MentionCategory;
  readonly score: number;
  readonly classifier: string;
  readonly status: MentionStatus;
  readonly publishedAtMs: number;
  readonly foundAtMs: number;
  readonly updatedAtMs: number;
  readonly version: number;
}

/** A post as the classifier judged it, ready to store. */
export interface Judged {
  readonly post: FoundMention;
  readonly id: string;
  readonly category: MentionCategory;
  readonly score: number;
  readonly classifier: string;
}

type Reader = Pick<Store, 'query'>;

const COLUMNS = `id, version, watch_id, collection_id, platform, external_id, url, author, title, text, lang, matched,
  category, score, classifier, status, toUnixTimestamp64Milli(published_at) AS published_ms,
  toUnixTimestamp64Milli(found_at) AS found_ms, toUnixTimestamp64Milli(updated_at) AS updated_ms`;

interface MentionRow {
  readonly id: string;
  readonly version: string | number;
  readonly watch_id: string;
  readonly collection_id: string;
  readonly platform: string;
  readonly external_id: string;
  readonly url: string;
  readonly author: string;
  readonly title: string;
  readonly text: string;
  readonly lang: string;
  readonly matched: readonly string[];
  readonly category: string;
  readonly score: string | number;
  readonly classifier: string;
  readonly status: string;
  readonly published_ms: string | number | null;
  readonly found_ms: string | number;
  readonly updated_ms: string | number;
}

function mentionOf(row: MentionRow): Mention {
  return {
    id: row.id,
    watchId: row.watch_id,
    collectionId: row.collection_id,
    platform: row.platform,
    externalId: row.external_id,
    url: row.url,
    author: row.author === '' ? null : row.author,
    title: row.title === '' ? null : row.title,
    text: row.text,
    lang: row.lang === '' ? null : row.lang,
    matched: row.matched,
    category: row.category as MentionCategory,
    score: Math.round(Number(row.score) * 1000) / 1000,
    classifier: row.classifier,
    status: row.status as MentionStatus,
    publishedAtMs: Number(row.published_ms ?? row.found_ms),
    foundAtMs: Number(row.found_ms),
    updatedAtMs: Number(row.updated_ms),
    version: Number(row.version),
  };
}

function rowOf(tenant: string, m: Omit<Mention, 'version'>, version: number): Record<string, unknown> {
  return {
    tenant,
    id: m.id,
    version,
    watch_id: m.watchId,
    collection_id: m.collectionId,
    url: m.url,
    platform: m.platform,
    external_id: m.externalId,
    category: m.category,
    status: m.status,
    title: m.title ?? '',
    snippet: m.text.slice(0, 280),
    text: m.text,
    lang: m.lang ?? '',
    matched: m.matched,
    author: m.author ?? '',
    score: m.score,
    classifier: m.classifier,
    found_at: new Date(m.foundAtMs),
    published_at: new Date(m.publishedAtMs),
    updated_at: new Date(m.updatedAtMs),
  };
}

/** Which of these mention ids the tenant already has. */
export async function storedMentionIds(store: Reader, tenant: string, ids: readonly string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows = await store.query<{ id: string }>('SELECT DISTINCT id FROM mentions WHERE tenant = {tenant:String} AND id IN {ids:Array(String)}', { tenant, ids });
  return new Set(rows.map((r) => r.id));
}

/** Judged posts as new mentions of a watch (version 1, status `new`), as they are stored. */
export function newMentions(watchId: string, collectionId: string, judged: readonly Judged[], nowMs: number): Mention[] {
  return judged.map((j) => ({
    id: j.id,
    watchId,
    collectionId,
    platform: j.post.platform,
    externalId: j.post.externalId,
    url: j.post.url,
    author: j.post.author,
    title: j.post.title,
    text: j.post.text,
    lang: j.post.lang,
    matched: j.post.matched,
    category: j.category,
    score: j.score,
    classifier: j.classifier,
    status: 'new',
    publishedAtMs: j.post.publishedAtMs,
    foundAtMs: nowMs,
    updatedAtMs: nowMs,
    version: 1,
  }));
}

/** Stores new mentions (`newMentions`); resolves once they landed. */
export async function writeMentions(writer: Pick<BatchWriter, 'write'>, tenant: string, mentions: readonly Mention[]): Promise<void> {
  if (mentions.length === 0) return;
  await writer.write('mentions', mentions.map((m) => rowOf(tenant, m, m.version)));
}

export interface MentionFilters {
  readonly watchId?: string;
  readonly category?: string;
  readonly platform?: string;
  readonly status?: string;
  readonly sinceMs?: number;
}

/** The position after which a page starts: the last mention of the previous page. */
export interface MentionCursor {
  readonly foundAtMs: number;
  readonly id: string;
}

export function encodeMentionCursor(c: MentionCursor): string {
  return Buffer.from(`m${c.foundAtMs}:${c.id}`).toString('base64url');
}

/** Null when the text is not a cursor this API returned. */
export function decodeMentionCursor(text: string): MentionCursor | null {
  const raw = Buffer.from(text, 'base64url').toString();
  const colon = raw.indexOf(':');
  if (!raw.startsWith('m') || colon < 2) return null;
  const foundAtMs = Number(raw.slice(1, colon));
  const id = raw.slice(colon + 1);
  return Number.isSafeInteger(foundAtMs) && id.startsWith('men_') && id.length <= 64 ? { foundAtMs, id } : null;
}

function listSql(filters: MentionFilters, cursor: MentionCursor | null): string {
  const where = ['tenant = {tenant:String}'];
  if (filters.watchId !== undefined) where.push('watch_id = {watchId:String}');
  if (filters.category !== undefined) where.push('category = {category:String}');
  if (filters.platform !== undefined) where.push('platform = {platform:String}');
  if (filters.status !== undefined) where.push('status = {status:String}');
  if (filters.sinceMs !== undefined) where.push('found_at >= fromUnixTimestamp64Milli({sinceMs:Int64})');
  if (cursor !== null) where.push('(found_at, id) < (fromUnixTimestamp64Milli({afterMs:Int64}), {afterId:String})');
  return `SELECT ${COLUMNS} FROM mentions FINAL WHERE ${where.join(' AND ')} ORDER BY found_at DESC, id DESC LIMIT {limit:UInt32}`;
}

/** One page of a tenant's mentions, newest found first; `next` is null on the last page. */
export async function listMentions(store: Reader, tenant: string, filters: MentionFilters, cursor: MentionCursor | null, limit: number): Promise<{ mentions: Mention[]; next: string | null }> {
  const given = Object.entries(filters).filter(([, v]) => v !== undefined);
  const params: Record<string, unknown> = { tenant, limit: limit + 1, ...Object.fromEntries(given) };
  if (cursor !== null) Object.assign(params, { afterMs: cursor.foundAtMs, afterId: cursor.id });
  const rows = await store.query<MentionRow>(listSql(filters, cursor), params);
  const mentions = rows.slice(0, limit).map(mentionOf);
  const last = mentions[mentions.length - 1];
  return { mentions, next: rows.length > limit && last ? encodeMentionCursor({ foundAtMs: last.foundAtMs, id: last.id }) : null };
}

/** This tenant's mentions of these ids (the notifier's batch), newest found first. */
export async function mentionsByIds(store: Reader, tenant: string, ids: readonly string[]): Promise<Mention[]> {
  if (ids.length === 0) return [];
  const rows = await store.query<MentionRow>(`SELECT ${COLUMNS} FROM mentions FINAL WHERE tenant = {tenant:String} AND id IN {ids:Array(String)} ORDER BY found_at DESC, id DESC`, { tenant, ids });
  return rows.map(mentionOf);
}

export async function readMention(store: Reader, tenant: string, id: string): Promise<Mention | null> {
  return (await mentionsByIds(store, tenant, [id]))[0] ?? null;
}

export interface StatusChange {
  readonly from: MentionStatus;
  readonly to: MentionStatus;
  readonly atMs: number;
}

/** Sets the mention's status (a new version) and records the change; the mention as it is now. */
export async function setMentionStatus(writer: Pick<BatchWriter, 'write'>, tenant: string, mention: Mention, status: MentionStatus, nowMs: number): Promise<Mention> {
  const updated: Mention = { ...mention, status, updatedAtMs: Math.max(nowMs, mention.updatedAtMs + 1), version: mention.version + 1 };
  await writer.write('mentions', [rowOf(tenant, updated, updated.version)]);
  await writer.write('mention_status_changes', [{ tenant, mention_id: mention.id, changed_at: new Date(updated.updatedAtMs), from_status: mention.status, to_status: status }]);
  return updated;
}

/** The mention's status changes, oldest first. */
export async function statusHistory(store: Reader, tenant: string, id: string): Promise<StatusChange[]> {
  const rows = await store.query<{ from_status: string; to_status: string; at_ms: string | number }>(
    `SELECT from_status, to_status, toUnixTimestamp64Milli(changed_at) AS at_ms FROM mention_status_changes FINAL
     WHERE tenant = {tenant:String} AND mention_id = {id:String} ORDER BY changed_at`,
    { tenant, id },
  );
  return rows.map((r) => ({ from: r.from_status as MentionStatus, to: r.to_status as MentionStatus, atMs: Number(r.at_ms) }));
}

const iso = (ms: number) => new Date(ms).toISOString();

/** A mention as the API shows it (GET /v1/mentions, PATCH, webhooks). */
export function mentionView(m: Mention): Record<string, unknown> {
  return {
    id: m.id,
    watchId: m.watchId,
    platform: m.platform,
    externalId: m.externalId,
    url: m.url,
    author: m.author,
    title: m.title,
    text: m.text,
    lang: m.lang,
    matchedKeywords: m.matched,
    category: m.category,
    score: m.score,
    classifier: m.classifier,
    status: m.status,
    publishedAt: iso(m.publishedAtMs),
    foundAt: iso(m.foundAtMs),
    updatedAt: iso(m.updatedAtMs),
    collectionId: m.collectionId,
  };
}
