/**
 * The 46 operations of the API, defined once: each family's rows beside its schemas
 * (schemas/api/<family>.ts, written with `op` of operation-row.ts), gathered here in the contract's
 * order. The gateway registers a route per row, validates with its schemas, and generates the
 * OpenAPI document from the same rows.
 */
import { Type, type TSchema } from '@sinclair/typebox';
import { Id } from './common.js';
import { INTEL_OPERATIONS } from './intel.js';
import { LEADS_SOCIAL_OPERATIONS } from './leads-social.js';
import { MONITORING_OPERATIONS } from './monitoring.js';
import { op, type Operation } from './operation-row.js';
import { PAGE_READING_OPERATIONS } from './page-reading.js';
import { SEARCH_OPERATIONS } from './search.js';

export { RAW_RESPONSE_HEADERS, type HttpMethod, type Operation } from './operation-row.js';

const jobId = Id('Job id returned when the job was started.');

export const OPERATIONS = [
  ...PAGE_READING_OPERATIONS,
  ...SEARCH_OPERATIONS,
  ...INTEL_OPERATIONS,
  ...MONITORING_OPERATIONS,
  ...LEADS_SOCIAL_OPERATIONS,
  // Reference
  op({ id: 'templates', method: 'GET', path: '/v1/templates', tag: 'Reference', summary: 'List extraction templates (free)', pricing: 'free' }),
  op({ id: 'source', method: 'GET', path: '/v1/source', tag: 'Reference', summary: 'Source-code offer', auth: false, pricing: 'free' }),
] as const satisfies readonly Operation[];

/** The id of an operation of the contract: what the gateway's operation table (gateway/wiring.ts) is keyed by. */
export type OperationId = (typeof OPERATIONS)[number]['id'];

/** The operations the contract prices `free`: they never charge. */
export type FreeOperationId = Extract<(typeof OPERATIONS)[number], { readonly pricing: 'free' }>['id'];

/** Path parameter schemas, by name; every path parameter is a string. */
export const PATH_PARAMS: Readonly<Record<string, TSchema>> = {
  job_id: jobId,
  monitor_id: Id('Monitor id.'),
  watch_id: Id('Watch id.'),
  mention_id: Id('Mention id.'),
  platform: Type.String({ minLength: 1, maxLength: 64, description: 'Platform key from GET /v1/social.' }),
  endpoint: Type.String({ minLength: 1, maxLength: 64, description: 'Endpoint key from GET /v1/social.' }),
};

export function pathParamNames(path: string): string[] {
  return [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1] as string);
}

/** The path in the router's syntax: `/v1/crawl/:job_id`. */
export function routerPath(path: string): string {
  return path.replace(/\{(\w+)\}/g, ':$1');
}
