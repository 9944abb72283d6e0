/**
 * One page of a monitor check judged against its previous snapshot (pure): the status the
 * check reports, the diff and the lines added and removed, and the snapshot to keep.
 *
 * Statuses (pipeline/pages/changes.ts comparePages with `ignoreNoise`, plus what a scrape's
 * failure means here):
 * - `error`: the page could not be read (the scrape's error code and message: DNS, refused,
 *   timeout, blocked address …) or answered another 4xx/5xx (a server error is not the
 *   page's content). The snapshot is kept as it was: the next good read is compared with the
 *   last good one.
 * - `removed`: the page answers 404 or 410 and was there before (or this is its first
 *   check). A page still gone on the next check is `same`: gone is reported once.
 * - `new`: the first check of the page.
 * - `changed`: the text differs from the previous snapshot once normalized (whitespace,
 *   blank lines, decorative images) and stripped of noise (timestamps, cache-busting query
 *   strings: pipeline/pages/changes-noise.ts); or the page came back after being gone.
 * - `same`: otherwise.
 *
 * The diff is the unified diff of the normalized texts, capped at MAX_DIFF_CHARS; the lines
 * added and removed come from its hunks, at most MAX_LINES each, each cut at MAX_LINE_CHARS;
 * `truncated` says a cap cut something.
 *
 * The snapshot is written for every page read, except an `error`, and a `same` page whose
 * normalized text did not move at all (nothing new to keep).
 */
import { comparePages, isGone, normalizeMarkdown, type PageSnapshot } from '../../pipeline/pages/changes.js';
import type { PageResult, PageStatus } from '../../pipeline/monitors/checks.js';
import type { ReplyValue } from '../../pipeline/runtime/request-reply.js';
import { parseJsonObject } from '../../pipeline/runtime/json.js';

export const MAX_DIFF_CHARS = 64 * 1024;
export const MAX_LINES = 200;
export const MAX_LINE_CHARS = 1000;

export interface Judgement {
  readonly result: PageResult;
  /** The snapshot to record; null to keep the previous one. */
  readonly snapshot: PageSnapshot | null;
}

export interface JudgedPage {
  readonly url: string;
  readonly position: number;
  readonly checkedAtMs: number;
}

type Reply = Pick<ReplyValue, 'ok' | 'data' | 'errorCode' | 'errorMessage' | 'credits'>;

const EMPTY_DIFF = { diff: '', added: [] as string[], removed: [] as string[], truncated: false };

function errorResult(page: JudgedPage, statusCode: number, code: string, message: string, credits: number): Judgement {
  return { result: { ...page, status: 'error', statusCode, errorCode: code, error: message, credits, ...EMPTY_DIFF }, snapshot: null };
}

function capLines(lines: string[]): { lines: string[]; cut: boolean } {
  let cut = lines.length > MAX_LINES;
  const kept = lines.slice(0, MAX_LINES).map((line) => {
    if (line.length <= MAX_LINE_CHARS) return line;
    cut = true;
    return line.slice(0, MAX_LINE_CHARS);
  });
  return { lines: kept, cut };
}

interface DiffChanges {
  files?: { chunks?: { changes?: { type?: string; content?: string }[] }[] }[];
}

function linesOf(json: DiffChanges | undefined, type: 'add' | 'del'): string[] {
  const out: string[] = [];
  for (const file of json?.files ?? []) {
    for (const chunk of file.chunks ?? []) {
      for (const change of chunk.changes ?? []) if (change.type === type && typeof change.content === 'string') out.push(change.content.slice(1));
    }
  }
  return out;
}

/** The page as read (its status and markdown) when the scrape path could read it; null otherwise. */
export function readSnapshot(reply: Reply, checkedAtMs: number): PageSnapshot | null {
  if (!reply.ok) return null;
  const doc = parseJsonObject(reply.data ?? '') ?? {};
  const metadata = (doc.metadata ?? {}) as Record<string, unknown>;
  const statusCode = typeof metadata.statusCode === 'number' ? metadata.statusCode : 200;
  return { scrapedAt: checkedAtMs, statusCode, markdown: typeof doc.markdown === 'string' ? doc.markdown : '', json: null };
}

/** Whether judgePage reads the previous snapshot for a page read as `current`: not for an error status (a 4xx or 5xx but 404 and 410). */
export function judgedAgainstPrevious(current: Pick<PageSnapshot, 'statusCode'>): boolean {
  return current.statusCode < 400 || isGone(current.statusCode);
}

/**
 * The page read by the scrape path (`reply`), judged against `previous` (null: first check).
 * `current`: the reply as readSnapshot reads it, when the caller read it already.
 */
export function judgePage(page: JudgedPage, previous: PageSnapshot | null, reply: Reply, current = readSnapshot(reply, page.checkedAtMs)): Judgement {
  if (!current) return errorResult(page, 0, reply.errorCode ?? 'upstream_error', reply.errorMessage ?? 'the page could not be read', 0);
  const { statusCode } = current;
  const credits = Math.max(0, reply.credits);
  if (!judgedAgainstPrevious(current)) {
    return errorResult(page, statusCode, 'http_error', `the page answered HTTP ${statusCode}`, credits);
  }
  const stillGone = previous !== null && isGone(previous.statusCode) && isGone(statusCode);
  const { tracking } = comparePages(previous, current, ['git-diff'], { ignoreNoise: true });
  const status: PageStatus = stillGone ? 'same' : tracking.changeStatus;
  const base = { ...page, status, statusCode, errorCode: '', error: '', credits };
  const untouched = previous !== null && (stillGone || (status === 'same' && normalizeMarkdown(previous.markdown) === normalizeMarkdown(current.markdown)));
  if (status !== 'changed' || !tracking.diff) return { result: { ...base, ...EMPTY_DIFF }, snapshot: untouched ? null : current };
  const text = tracking.diff.text;
  const added = capLines(linesOf(tracking.diff.json as DiffChanges, 'add'));
  const removed = capLines(linesOf(tracking.diff.json as DiffChanges, 'del'));
  return {
    result: {
      ...base,
      diff: text.length > MAX_DIFF_CHARS ? text.slice(0, MAX_DIFF_CHARS) : text,
      added: added.lines,
      removed: removed.lines,
      truncated: text.length > MAX_DIFF_CHARS || added.cut || removed.cut,
    },
    snapshot: current,
  };
}

/**
 * The page judged when all the check knows of its previous snapshot is that the two differ
 * only by noise (their digests, pipeline/monitors/snapshots.ts digestMatch): what judgePage
 * finds against that snapshot without reading it. The status and result are those of the page
 * against itself (`same`, or the error or still-gone status its own status code gives); the
 * snapshot kept is this read, as judgePage keeps a `same` page whose text moved, except for a
 * page still gone, whose snapshot stays.
 */
export function judgeMovedByNoise(page: JudgedPage, reply: Reply, current = readSnapshot(reply, page.checkedAtMs)): Judgement {
  const judged = judgePage(page, current, reply, current);
  const moved = current !== null && judged.result.status === 'same' && !isGone(current.statusCode);
  return moved ? { ...judged, snapshot: current } : judged;
}
