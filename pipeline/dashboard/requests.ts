/**
 * The `api_requests` row (infra/clickhouse/0014_requests.sql) the gateway writes for each
 * answered /v1 request of a key (gateway/usage.ts), and the usage panel reads
 * (queries.sql `usage_by_day`, `errors_by_code`).
 */
export const REQUESTS_TABLE = 'api_requests';

export interface RequestFacts {
  /** The key's id, never its secret. */
  readonly tenant: string;
  readonly atMs: number;
  /** The operation id (schemas/api/operations.ts). */
  readonly op: string;
  readonly status: number;
  /** The error envelope's code; empty for a success. */
  readonly code: string;
  readonly credits: number;
  readonly requestId: string;
}

export function requestRow(facts: RequestFacts): Record<string, unknown> {
  return {
    tenant: facts.tenant,
    at: new Date(facts.atMs),
    op: facts.op,
    status: facts.status,
    code: facts.code,
    credits: Math.max(0, Math.round(facts.credits)),
    request_id: facts.requestId,
  };
}
