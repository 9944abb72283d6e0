/**
 * A tenant's versioned records: tables of ReplacingMergeTree(version) rows read with FINAL,
 * where deleting writes a version with `deleted = 1` (monitors, watches; infra/clickhouse/0001_init.sql).
 * Every read but `active` names the tenant, so another key's record is the same as an unknown
 * id; `active` reads every tenant, for the frontier's schedule rebuild.
 *
 * A record's webhook URL is stored sealed (AES-256-GCM under the deployment's server secret,
 * pipeline/runtime/seal.ts) and bound to the record's id: a receiver's URL is often its
 * credential (a chat service's incoming-webhook path, a token in the query), so the store, its
 * backups and anyone reading the table never see it in clear.
 */
import { openSealed, sealSecret } from '../seal.js';

export interface RecordReads {
  /** One record of a tenant. Params: tenant, id. */
  readonly byId: string;
  /** A tenant's records, newest first. Params: tenant. */
  readonly ofTenant: string;
  /** Every tenant's records. */
  readonly active: string;
}

/** The reads of `table`'s live records, each row's `columns` (a SELECT list). */
export function recordReads(table: string, columns: string): RecordReads {
  return {
    byId: `
SELECT ${columns} FROM ${table} FINAL
WHERE tenant = {tenant:String} AND id = {id:String} AND deleted = 0`,
    ofTenant: `
SELECT ${columns} FROM ${table} FINAL
WHERE tenant = {tenant:String} AND deleted = 0
ORDER BY created_at DESC, id`,
    active: `
SELECT ${columns} FROM ${table} FINAL
WHERE deleted = 0`,
  };
}

export interface WebhookSeal {
  /** `url` sealed for the record `id`. */
  seal(serverSecret: string, url: string, id: string): string;
  /** The record's webhook URL in clear; null without one, or when it was sealed under another server secret or for another record. */
  open(serverSecret: string, record: { readonly id: string; readonly sealedWebhook: string | null }): string | null;
}

/** The seal of one kind of record's webhook URLs, bound to `kind` and each record's id. */
export function webhookSeal(kind: string): WebhookSeal {
  const context = (id: string) => `${kind}-webhook:${id}`;
  return {
    seal: (serverSecret, url, id) => sealSecret(serverSecret, url, context(id)),
    open(serverSecret, record) {
      if (record.sealedWebhook === null) return null;
      try {
        return openSealed(serverSecret, record.sealedWebhook, context(record.id));
      } catch {
        return null;
      }
    },
  };
}
