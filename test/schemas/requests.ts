/**
 * Requests for the operations of schemas/api/operations.ts, built from their schemas: the
 * three validated parts (path, query, body), each a JSON value, and how to inject them.
 */
import type { InjectOptions } from 'fastify';
import { OPERATIONS, PATH_PARAMS, pathParamNames, type Operation } from '../../schemas/api/operations.js';
import { bearer } from '../helpers/gateway.js';
import { minimalValue, type Schema } from '../helpers/schema-walk.js';

export type PartName = 'path' | 'query' | 'body';

export interface RequestParts {
  path: Record<string, unknown>;
  query: Record<string, unknown>;
  /** undefined sends no body. */
  body?: unknown;
}

/** Every operation with a JSON (or no) body; POST /v1/parse is multipart and tested on its own. */
export const JSON_OPERATIONS = OPERATIONS.filter((op) => !op.multipartFiles);

export const title = (op: Operation) => `${op.method} ${op.path}`;

/** The validated parts of an operation and their schemas; the path schema is built as the gateway builds it. */
export function partSchemas(op: Operation): [PartName, Schema][] {
  const names = pathParamNames(op.path);
  const out: [PartName, Schema][] = [];
  if (names.length) {
    const properties = Object.fromEntries(names.map((n) => [n, PATH_PARAMS[n] as Schema]));
    out.push(['path', { type: 'object', properties, required: names }]);
  }
  if (op.query) out.push(['query', op.query as Schema]);
  if (op.body) out.push(['body', op.body as Schema]);
  return out;
}

/** A request that passes validation: required fields only. */
export function minimalParts(op: Operation): RequestParts {
  const parts: RequestParts = { path: {}, query: {} };
  for (const [name, schema] of partSchemas(op)) {
    const value = minimalValue(schema);
    if (name === 'body') parts.body = value;
    else parts[name] = value as Record<string, unknown>;
  }
  return parts;
}

/** `parts` with one part replaced. */
export function withPart(parts: RequestParts, name: PartName, value: unknown): RequestParts {
  return name === 'body' ? { ...parts, body: value } : { ...parts, [name]: value as Record<string, unknown> };
}

export function queryString(query: Record<string, unknown>): string {
  const search = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) {
    for (const item of Array.isArray(v) ? v : [v]) if (item !== undefined) search.append(k, String(item));
  }
  const text = search.toString();
  return text ? `?${text}` : '';
}

export function urlOf(op: Operation, parts: RequestParts): string {
  const path = op.path.replace(/\{(\w+)\}/g, (_, n: string) => encodeURIComponent(String(parts.path[n])));
  return `${path}${queryString(parts.query)}`;
}

export function injectOptions(op: Operation, parts: RequestParts, key: string): InjectOptions {
  const hasBody = parts.body !== undefined;
  return {
    method: op.method,
    url: urlOf(op, parts),
    headers: { ...bearer(key), ...(hasBody ? { 'content-type': 'application/json' } : {}) },
    ...(hasBody ? { payload: JSON.stringify(parts.body) } : {}),
  };
}
