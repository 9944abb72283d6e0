/**
 * The company answers a key has had, kept for the cache window (COMPANY_CACHE_HOURS) in the
 * store (infra/clickhouse/0012_company.sql `company_answers`), filed under the company's key:
 * its registrable domain (site.ts), so any URL on the site finds it.
 *
 * - A request finds the newest answer of its key for the domain read within the window, on the
 *   injected clock (the window's start is a bound parameter, never the store's `now()`); one
 *   kept with contacts serves a request without them (its contacts dropped).
 * - Answers are written through the batch writer and the request waits for its row to land, so
 *   the same company asked again right after is served from it.
 * - Per key: every read names the tenant; another key's answers are never seen.
 */
import type { BatchWriter } from '../../runtime/store/batch-writer.js';
import type { Store } from '../../runtime/store/store.js';
import type { CompanyAnswer } from './company.js';

const HOUR_MS = 3_600_000;

const NEWEST = `
SELECT answer, toUnixTimestamp64Milli(read_at) AS read_ms
FROM company_answers
WHERE tenant = {tenant:String} AND domain = {domain:String} AND contacts >= {contacts:UInt8}
  AND read_at >= fromUnixTimestamp64Milli({sinceMs:Int64})
ORDER BY read_at DESC
LIMIT 1`;

export interface CachedCompany {
  readonly answer: CompanyAnswer;
  /** When it was read (epoch ms). */
  readonly readAtMs: number;
}

/** The key's newest answer for the company within the window, shaped for a request with or without contacts; null when none. */
export async function cachedCompany(
  store: Pick<Store, 'query'>,
  request: { readonly tenant: string; readonly domain: string; readonly contacts: boolean; readonly windowHours: number; readonly nowMs: number },
): Promise<CachedCompany | null> {
  if (request.windowHours <= 0) return null;
  const rows = await store.query<{ answer: string; read_ms: string | number }>(NEWEST, {
    tenant: request.tenant,
    domain: request.domain,
    contacts: request.contacts ? 1 : 0,
    sinceMs: request.nowMs - request.windowHours * HOUR_MS,
  });
  const row = rows[0];
  if (!row) return null;
  let answer: CompanyAnswer;
  try {
    answer = JSON.parse(row.answer) as CompanyAnswer;
  } catch {
    return null;
  }
  return { answer: request.contacts ? answer : { ...answer, contacts: null }, readAtMs: Number(row.read_ms) };
}

/** Keeps an answer for the window (resolves once its row has landed). */
export async function keepCompany(writer: Pick<BatchWriter, 'write'>, tenant: string, answer: CompanyAnswer, readAtMs: number): Promise<void> {
  await writer.write('company_answers', [{ tenant, domain: answer.domain, contacts: answer.contacts ? 1 : 0, read_at: new Date(readAtMs), answer: JSON.stringify(answer) }]);
}
