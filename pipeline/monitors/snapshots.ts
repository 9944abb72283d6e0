/**
 * A monitor's page snapshots: the `page_changes` table of change tracking
 * (infra/clickhouse/0004_page_changes.sql, pipeline/pages/changes.ts), under a history of the
 * monitor's own: (tenant, url, has_tag = 2, tag = the monitor id). A scrape's `changeTracking`
 * tag writes has_tag 0 or 1, so no caller's tag can reach a monitor's history, and two
 * monitors of one page keep separate ones. One row per page (ReplacingMergeTree(scraped_at)),
 * however often it is checked: the checks keep only what they found (monitor_check_pages).
 *
 * URLs are normalized with the page cache's rule (pipeline/runtime/url.ts normalizeUrl).
 *
 * Beside the store, coordination state keeps each page's snapshot digest (its status, a hash
 * of its normalized text and a hash of that text stripped of noise:
 * `monitor:<id>:page:<url hash>`), written once its snapshot has landed. A check whose page
 * reads back with the same digest judges it against the snapshot the digest stands for,
 * without reading the store: an unchanged page costs no read. One that reads back with the
 * same status and the same noise-free hash differs from its snapshot only by noise (times,
 * cache-busting values), which a monitor judges `same` (pipeline/pages/changes.ts
 * `ignoreNoise`): no read either (`digestMatch`). A digest missing (state lost, or never
 * written) or of the older two-part form only means the store is read.
 */
import { createHash } from 'node:crypto';
import { normalizeUrl } from '../runtime/url.js';
import { normalizeMarkdown, type PageSnapshot } from '../pages/changes.js';
import { withoutNoise } from '../pages/changes-noise.js';
import type { State } from '../runtime/state/state.js';
import type { BatchWriter, WriteOptions } from '../runtime/store/batch-writer.js';
import type { Store } from '../runtime/store/store.js';

export const MONITOR_HISTORY = 2;

/**
 * The newest snapshot of each of a monitor's pages: one range read per URL of the sort key.
 * Params: tenant, monitorId, urls (normalized).
 */
export const MONITOR_SNAPSHOTS = `
SELECT url, toUnixTimestamp64Milli(scraped_at) AS scraped_at_ms, status_code, markdown
FROM page_changes
WHERE tenant = {tenant:String} AND url_hash IN (SELECT cityHash64(arrayJoin({urls:Array(String)})))
  AND url IN {urls:Array(String)} AND has_tag = ${MONITOR_HISTORY} AND tag = {monitorId:String}
ORDER BY url, scraped_at DESC
LIMIT 1 BY url`;

interface SnapshotRow {
  readonly url: string;
  readonly scraped_at_ms: string | number;
  readonly status_code: string | number;
  readonly markdown: string;
}

/** The given page URL → its newest snapshot in the monitor's history (absent: none yet). */
export async function monitorSnapshots(store: Pick<Store, 'query'>, tenant: string, monitorId: string, urls: readonly string[]): Promise<Map<string, PageSnapshot>> {
  const byNormal = new Map(urls.map((u) => [normalizeUrl(u), u]));
  const out = new Map<string, PageSnapshot>();
  if (byNormal.size === 0) return out;
  const rows = await store.query<SnapshotRow>(MONITOR_SNAPSHOTS, { tenant, monitorId, urls: [...byNormal.keys()] });
  for (const row of rows) {
    const url = byNormal.get(row.url);
    if (url !== undefined) out.set(url, { scrapedAt: Number(row.scraped_at_ms), statusCode: Number(row.status_code), markdown: row.markdown, json: null });
  }
  return out;
}

/** Writes the page's snapshot into the monitor's history; resolves once it landed. */
export async function recordMonitorSnapshot(writer: Pick<BatchWriter, 'write'>, tenant: string, monitorId: string, url: string, snapshot: PageSnapshot, options: WriteOptions = {}): Promise<void> {
  await writer.write('page_changes', [
    {
      tenant,
      url: normalizeUrl(url),
      has_tag: MONITOR_HISTORY,
      tag: monitorId,
      scraped_at: new Date(snapshot.scrapedAt),
      status_code: snapshot.statusCode,
      markdown: snapshot.markdown,
      json: '',
    },
  ], options);
}

/** How long a page's digest is kept: past the longest interval (a week), so a check always finds its last one. */
export const DIGEST_TTL_MS = 8 * 24 * 3_600_000;

const digestKey = (monitorId: string, url: string) => `monitor:${monitorId}:page:${createHash('sha1').update(normalizeUrl(url)).digest('hex')}`;

const hashOf = (text: string) => createHash('sha256').update(text).digest('base64');

/** A page's digest: `<status>:<normalized text's hash>:<its noise-free text's hash>` (base64 has no `:`). */
export function snapshotDigest(snapshot: Pick<PageSnapshot, 'statusCode' | 'markdown'>): string {
  const text = normalizeMarkdown(snapshot.markdown);
  return `${snapshot.statusCode}:${hashOf(text)}:${hashOf(withoutNoise(text))}`;
}

/**
 * How a page read now stands to the snapshot a kept digest stands for: `same`, the same status
 * and normalized text; `noise`, the same status and the same text once stripped of noise (the
 * texts differ only by noise); null, otherwise or unknown (a kept digest of the older
 * `<status>:<hash>` form knows no noise-free hash): read the snapshot. The noise-free text is
 * made only when the texts differ (its patterns cost more than the rest of the digest).
 */
export function digestMatch(kept: string, page: Pick<PageSnapshot, 'statusCode' | 'markdown'>): 'same' | 'noise' | null {
  const [status, hash, quiet] = kept.split(':');
  if (status !== String(page.statusCode)) return null;
  const text = normalizeMarkdown(page.markdown);
  if (hash === hashOf(text)) return 'same';
  return quiet !== undefined && quiet === hashOf(withoutNoise(text)) ? 'noise' : null;
}

/** Whether a kept digest has the current form (with its noise-free hash). */
export const hasNoiseFreeHash = (kept: string) => kept.split(':').length === 3;

/** The digest of the page's newest snapshot, as state holds it; null when it does not. */
export const storedDigest = (state: Pick<State, 'get'>, monitorId: string, url: string) => state.get(digestKey(monitorId, url));

/** Records that the page's newest snapshot (landed in the store) has this digest. */
export const keepDigest = (state: Pick<State, 'set'>, monitorId: string, url: string, digest: string) => state.set(digestKey(monitorId, url), digest, DIGEST_TTL_MS);
