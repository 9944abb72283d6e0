/**
 * The webhook deliveries of monitor checks, as a check lists them: the notifier's
 * `webhook_deliveries` rows (infra/clickhouse/0001_init.sql) whose source is the check id,
 * the newest attempt of each delivery, with whether it was delivered, failed for good, or is
 * still being retried.
 */
import type { Store } from '../runtime/store/store.js';

type Reader = Pick<Store, 'query'>;

export interface CheckDelivery {
  readonly checkId: string;
  readonly event: string;
  /** `delivered` once an attempt got a 2xx; `failed` after the last attempt; `retrying` between. */
  readonly status: 'delivered' | 'failed' | 'retrying';
  readonly attempts: number;
  readonly statusCode: number;
  readonly lastError: string;
  readonly lastAttemptAtMs: number;
}

/** The newest attempt of each delivery of some checks. Params: tenant, checkIds. */
export const CHECK_DELIVERIES = `
SELECT source_id, id, event, max(attempt) AS attempts, argMax(ok, attempt) AS ok, argMax(status_code, attempt) AS status_code,
  argMax(error, attempt) AS error, toUnixTimestamp64Milli(max(at)) AS at_ms
FROM webhook_deliveries FINAL
WHERE tenant = {tenant:String} AND source_id IN {checkIds:Array(String)}
GROUP BY source_id, id, event`;

/**
 * Whether a failed attempt was the delivery's last whatever the attempts left: an answer the
 * notifier does not retry (3xx, 4xx but 408 and 429: actors/notifier/deliver.ts), or a URL the
 * SSRF guard refused or whose name does not resolve.
 */
function finalAnswer(statusCode: number, error: string): boolean {
  if (statusCode === 0) return error.startsWith('url_blocked') || error.startsWith('dns_failed');
  return statusCode < 500 && statusCode !== 408 && statusCode !== 429;
}

/** check id → its deliveries; `attemptsPerDelivery` tells a failed delivery from one still retrying. */
export async function checkDeliveries(store: Reader, tenant: string, checkIds: readonly string[], attemptsPerDelivery: number): Promise<Map<string, CheckDelivery[]>> {
  const out = new Map<string, CheckDelivery[]>();
  if (checkIds.length === 0) return out;
  const rows = await store.query<{ source_id: string; event: string; attempts: string | number; ok: string | number; status_code: string | number; error: string; at_ms: string | number }>(
    CHECK_DELIVERIES,
    { tenant, checkIds },
  );
  for (const row of rows) {
    const attempts = Number(row.attempts);
    const ok = Number(row.ok) === 1;
    const delivery: CheckDelivery = {
      checkId: row.source_id,
      event: row.event,
      status: ok ? 'delivered' : attempts >= attemptsPerDelivery || finalAnswer(Number(row.status_code), row.error) ? 'failed' : 'retrying',
      attempts,
      statusCode: Number(row.status_code),
      lastError: row.error,
      lastAttemptAtMs: Number(row.at_ms),
    };
    out.set(row.source_id, [...(out.get(row.source_id) ?? []), delivery]);
  }
  return out;
}
