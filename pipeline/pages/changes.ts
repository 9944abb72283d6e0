/**
 * Change tracking: a page compared with the caller's previous snapshot of it. Serves the
 * `changeTracking` scrape format (Firecrawl's field names, reference-shapes-wave2 §1) and,
 * later, monitors; it knows snapshots and history keys only, nothing of a scrape request.
 *
 * The caller (1) reads `previousSnapshot(store, key)`, (2) answers `comparePages(previous,
 * current, modes)` (or `compareSnapshots`, the same without warnings), then (3) writes the
 * current snapshot: `recordSnapshot(writer, key, current)`, or `writer.write('page_changes',
 * [snapshotRow(key, current)])`. A page that could not be read (fetch error, timeout) is not a
 * snapshot: record only pages that were answered.
 *
 * History key: (tenant, url, tag). `tenant` is the API key's id: a key never sees another
 * key's snapshots. `url` is normalized with the page cache's rule (pipeline/runtime/url.ts
 * `normalizeUrl`). `tag` is the caller's string; each tag has its own history, and `null`
 * (no tag) is a history of its own, distinct from the tag `""`.
 *
 * Status (`changeStatus`), in this order:
 * - `removed` when the current status code is 404 or 410, whether or not there is a history
 *   (as Firecrawl: a first scrape of a missing page is `removed`, not `new`);
 * - `new` when there is no previous snapshot;
 * - `changed` when the previous snapshot was a 404/410 (the page came back);
 * - otherwise `same` when the two normalized markdowns are equal, else `changed`.
 * `visibility` is `hidden` when the current status code is 404 or 410 (the page is not
 * found now), `visible` otherwise.
 *
 * Order matters, unlike Firecrawl (which compares the sorted characters of the two pages):
 * the same lines in another order, a moved paragraph, are `changed`.
 *
 * Normalisation (`normalizeMarkdown`), so that layout noise is not a change: line endings
 * made `\n`; trailing whitespace of every line removed; inside a line, runs of spaces, tabs
 * and no-break spaces made one space (the leading indentation is kept: in markdown it makes
 * code blocks and nested lists); runs of blank lines made one, and blank lines at both ends
 * dropped; a final newline added. Noise lines dropped: a line that is only an image with an
 * empty alt text, `![](url)` — by HTML's own rule an empty alt marks an image with no content
 * (tracking pixels, spacers, rotating decoration), whose URL often changes on every load.
 * The diffs are of the normalized texts, so a `changed` page always has a hunk to show.
 * Monitors compare with `ignoreNoise` (CompareOptions): texts equal once timestamps and
 * cache-busting query strings are neutralised (pipeline/pages/changes-noise.ts) are `same`.
 *
 * Modes, computed only when the status is `changed` (as Firecrawl):
 * - `git-diff`: `diff.text` (unified diff, `--- previous\t<ISO>` / `+++ current\t<ISO>`) and
 *   `diff.json` (the parse-diff shape); pipeline/pages/changes-diff.ts. Past MAX_EDIT_LINES
 *   changed lines the diff is given up: the status stays `changed`, `diff.text` says why, the
 *   chunks are empty, and a warning is returned.
 * - `json`: `{field: {previous, current}}` for the top-level fields of the two snapshots'
 *   `json` that differ. When either snapshot has no json, `json` is omitted and a warning is
 *   returned for the answer's `warning` (`comparePages`; `compareSnapshots` drops it).
 */
import type { BatchWriter } from '../runtime/store/batch-writer.js';
import type { Store } from '../runtime/store/store.js';
import { parseJsonObject } from '../runtime/json.js';
import { normalizeUrl } from '../runtime/url.js';
import { gitDiff, jsonFieldDiff, MAX_EDIT_LINES, type GitDiff, type JsonFieldDiff } from './changes-diff.js';
import { withoutNoise } from './changes-noise.js';

export type ChangeStatus = 'new' | 'same' | 'changed' | 'removed';
export type ChangeMode = 'git-diff' | 'json';
export const CHANGE_MODES: readonly ChangeMode[] = ['git-diff', 'json'];

export interface PageSnapshot {
  /** Epoch ms. */
  readonly scrapedAt: number;
  readonly statusCode: number;
  readonly markdown: string;
  /** The `json` format's output; null when the scrape had none. */
  readonly json: Record<string, unknown> | null;
}

export interface ChangeTracking {
  /** ISO time of the previous snapshot; null on a first scrape. */
  previousScrapeAt: string | null;
  changeStatus: ChangeStatus;
  /** `hidden` when the page is not found now (404 or 410). */
  visibility: 'visible' | 'hidden';
  diff?: GitDiff;
  json?: JsonFieldDiff;
}

/** One history: a tenant's snapshots of a URL under a tag (null: no tag). */
export interface HistoryKey {
  readonly tenant: string;
  readonly url: string;
  readonly tag: string | null;
}

export interface Comparison {
  readonly tracking: ChangeTracking;
  /** For the answer's `warning`: why a requested mode is missing or empty. */
  readonly warnings: readonly string[];
}

export const WARNING_JSON_UNAVAILABLE = 'Change tracking json mode skipped: the previous or the current scrape has no json output.';
export const WARNING_DIFF_TOO_LARGE = `Change tracking git-diff skipped: more than ${MAX_EDIT_LINES} lines changed.`;

const GONE_STATUS_CODES: readonly number[] = [404, 410];

/** True for the status codes that mean the page is not there (404, 410). */
export function isGone(statusCode: number): boolean {
  return GONE_STATUS_CODES.includes(statusCode);
}

/** Runs of horizontal whitespace inside a line (linear: one character class). */
const SPACE_RUN = /[ \t\u00a0]+/g;
/** A line that is only an image with an empty alt text (linear: no nested quantifier). */
const DECORATIVE_IMAGE = /^!\[\]\([^\s()]*\)$/;

function tidyLine(line: string): string {
  const trimmed = line.trimEnd();
  const body = trimmed.trimStart();
  return trimmed.slice(0, trimmed.length - body.length) + body.replace(SPACE_RUN, ' ');
}

/** The markdown as compared and diffed; see the module doc. Empty, or ends with `\n`. */
export function normalizeMarkdown(markdown: string): string {
  const out: string[] = [];
  let afterBlank = true;
  for (const raw of markdown.split(/\r\n|\r|\n/)) {
    const line = tidyLine(raw);
    if (DECORATIVE_IMAGE.test(line.trimStart())) continue;
    if (line === '') {
      if (!afterBlank) out.push('');
      afterBlank = true;
      continue;
    }
    out.push(line);
    afterBlank = false;
  }
  if (out.at(-1) === '') out.pop();
  return out.length === 0 ? '' : `${out.join('\n')}\n`;
}

function iso(epochMs: number): string {
  return new Date(epochMs).toISOString();
}

export interface CompareOptions {
  /**
   * Monitors: two pages whose normalized markdowns differ only by noise (timestamps,
   * cache-busting query strings: pipeline/pages/changes-noise.ts) are `same`. The diff of a
   * `changed` page is still of the normalized texts, noise included.
   */
  readonly ignoreNoise?: boolean;
}

function sameText(before: string, after: string, options: CompareOptions): boolean {
  if (before === after) return true;
  return options.ignoreNoise === true && withoutNoise(before) === withoutNoise(after);
}

function statusOf(previous: PageSnapshot | null, current: PageSnapshot, before: string, after: string, options: CompareOptions): ChangeStatus {
  if (isGone(current.statusCode)) return 'removed';
  if (!previous) return 'new';
  if (isGone(previous.statusCode)) return 'changed';
  return sameText(before, after, options) ? 'same' : 'changed';
}

/** Status, diffs and warnings of `current` against `previous` (null: first scrape). */
export function comparePages(previous: PageSnapshot | null, current: PageSnapshot, modes: readonly ChangeMode[], options: CompareOptions = {}): Comparison {
  const compared = previous !== null && !isGone(current.statusCode);
  const before = compared ? normalizeMarkdown(previous.markdown) : '';
  const after = compared ? normalizeMarkdown(current.markdown) : '';
  const changeStatus = statusOf(previous, current, before, after, options);
  const tracking: ChangeTracking = {
    previousScrapeAt: previous ? iso(previous.scrapedAt) : null,
    changeStatus,
    visibility: isGone(current.statusCode) ? 'hidden' : 'visible',
  };
  const warnings: string[] = [];
  if (changeStatus !== 'changed' || !previous) return { tracking, warnings };
  if (modes.includes('git-diff')) {
    const result = gitDiff({ text: before, at: iso(previous.scrapedAt) }, { text: after, at: iso(current.scrapedAt) });
    tracking.diff = result.diff;
    if (result.tooLarge) warnings.push(WARNING_DIFF_TOO_LARGE);
  }
  if (modes.includes('json')) {
    if (previous.json && current.json) tracking.json = jsonFieldDiff(previous.json, current.json);
    else warnings.push(WARNING_JSON_UNAVAILABLE);
  }
  return { tracking, warnings };
}

/** Pure: status and diffs of `current` against `previous` (null: first scrape). */
export function compareSnapshots(previous: PageSnapshot | null, current: PageSnapshot, modes: readonly ChangeMode[]): ChangeTracking {
  return comparePages(previous, current, modes).tracking;
}

/**
 * The newest snapshot of one history (infra/clickhouse/0004_page_changes.sql): a range read of
 * the sort key (tenant, url_hash, url, has_tag, tag). No FINAL: before a merge the key's
 * older rows are still there, and `ORDER BY scraped_at DESC LIMIT 1` takes the newest anyway.
 * Params: tenant, url (normalized), hasTag, tag.
 */
export const PREVIOUS_SNAPSHOT = `
SELECT toUnixTimestamp64Milli(scraped_at) AS scraped_at_ms, status_code, markdown, json
FROM page_changes
WHERE tenant = {tenant:String} AND url_hash = cityHash64({url:String}) AND url = {url:String}
  AND has_tag = {hasTag:UInt8} AND tag = {tag:String}
ORDER BY scraped_at DESC
LIMIT 1`;

interface SnapshotRow {
  /** Int64 comes back as a string (pipeline/runtime/store/wire.ts). */
  readonly scraped_at_ms: string | number;
  readonly status_code: number | string;
  readonly markdown: string;
  readonly json: string;
}

function keyParams(key: HistoryKey): { tenant: string; url: string; hasTag: number; tag: string } {
  return { tenant: key.tenant, url: normalizeUrl(key.url), hasTag: key.tag === null ? 0 : 1, tag: key.tag ?? '' };
}

/** The caller's newest snapshot of (tenant, url, tag); null when there is none. */
export async function previousSnapshot(store: Pick<Store, 'query'>, key: HistoryKey): Promise<PageSnapshot | null> {
  const [row] = await store.query<SnapshotRow>(PREVIOUS_SNAPSHOT, keyParams(key));
  if (!row) return null;
  return {
    scrapedAt: Number(row.scraped_at_ms),
    statusCode: Number(row.status_code),
    markdown: row.markdown,
    json: row.json === '' ? null : parseJsonObject(row.json),
  };
}

/** The `page_changes` row of a snapshot. */
export function snapshotRow(key: HistoryKey, snapshot: PageSnapshot): Record<string, unknown> {
  const { tenant, url, hasTag, tag } = keyParams(key);
  return {
    tenant,
    url,
    has_tag: hasTag,
    tag,
    scraped_at: new Date(snapshot.scrapedAt),
    status_code: snapshot.statusCode,
    markdown: snapshot.markdown,
    json: snapshot.json ? JSON.stringify(snapshot.json) : '',
  };
}

/** Writes the snapshot through the runtime's batch writer; resolves when it landed. */
export function recordSnapshot(writer: Pick<BatchWriter, 'write'>, key: HistoryKey, snapshot: PageSnapshot): Promise<void> {
  return writer.write('page_changes', [snapshotRow(key, snapshot)]);
}
