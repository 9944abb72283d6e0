/**
 * The tokens model calls used for a key (infra/clickhouse/0015_model_usage.sql): the extractor
 * writes one `model_usage` row per page a model answered, as it settles the page
 * (actors/extractor/handler.ts), and Firecrawl's token-usage reads sum them per calendar month
 * (gateway/firecrawl/team.ts). A call that failed answers nothing and is not counted (nor
 * charged); a page the model did not answer writes no row.
 */
import type { BatchWriter } from '../runtime/store/batch-writer.js';
import type { Store } from '../runtime/store/store.js';

export const MODEL_USAGE_TABLE = 'model_usage';

export interface ModelUsageFacts {
  /** The key's id, never its secret. */
  readonly tenant: string;
  /** The request's time (the gateway's clock). */
  readonly atMs: number;
  readonly requestId: string;
  readonly jobId: string | null;
  readonly owner: 'operator' | 'caller';
  /** `provider:name`. */
  readonly model: string;
  readonly inputTokens: number;
  readonly outputTokens: number;
}

const count = (n: number) => Math.min(0xffff_ffff, Math.max(0, Math.round(Number.isFinite(n) ? n : 0)));

/** Writes the page's row; nothing when the calls used no tokens (a provider that reports none). */
export async function recordModelUsage(writer: Pick<BatchWriter, 'write'>, facts: ModelUsageFacts): Promise<void> {
  const input = count(facts.inputTokens);
  const output = count(facts.outputTokens);
  if (input + output === 0) return;
  await writer.write(MODEL_USAGE_TABLE, [
    {
      tenant: facts.tenant,
      at: new Date(facts.atMs),
      request_id: facts.requestId,
      job_id: facts.jobId ?? '',
      owner: facts.owner,
      model: facts.model,
      input_tokens: input,
      output_tokens: output,
    },
  ]);
}

export interface MonthlyTokens {
  /** `YYYY-MM`, UTC. */
  readonly month: string;
  readonly inputTokens: number;
  readonly outputTokens: number;
}

/** The key's tokens per calendar month (UTC), oldest first. */
export async function tokensByMonth(store: Pick<Store, 'query'>, tenant: string): Promise<MonthlyTokens[]> {
  const rows = await store.query<{ month: string; input: string | number; output: string | number }>(
    `SELECT formatDateTime(toStartOfMonth(at), '%Y-%m') AS month, sum(input_tokens) AS input, sum(output_tokens) AS output
     FROM ${MODEL_USAGE_TABLE} WHERE tenant = {tenant:String} GROUP BY month ORDER BY month`,
    { tenant },
  );
  return rows.map((r) => ({ month: r.month, inputTokens: Number(r.input), outputTokens: Number(r.output) }));
}
