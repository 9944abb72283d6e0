/**
 * The OpenAPI 3.1.0 document, generated from the operation table and its schemas (the
 * same objects the validator compiles), served at GET /v1/openapi.json.
 *
 * The social catalog's endpoints share one operation (POST /v1/social/{platform}/{endpoint},
 * whose body is an open object): each endpoint's input is a component of its own
 * (`Social.<platform>.<endpoint>`, schemas/api/social.ts, the schema a call is validated
 * with), and the operation lists them under `x-social-endpoints` with their price.
 */
import type { TSchema } from '@sinclair/typebox';
import { ERRORS } from '../schemas/errors.js';
import { ErrorEnvelope, SuccessEnvelope, ValidationErrorBody } from '../schemas/api/common.js';
import { OPERATIONS, PATH_PARAMS, RAW_RESPONSE_HEADERS, pathParamNames, type Operation } from '../schemas/api/operations.js';
import { PRICES } from '../schemas/api/prices.js';
import { SOCIAL_ENDPOINTS, socialInputName } from '../schemas/api/social.js';

export const API_VERSION = '0.1.0';

type Json = Record<string, unknown>;

/** Plain JSON of a TypeBox schema (drops TypeBox's symbol keys). */
function plain(schema: TSchema): Json {
  return JSON.parse(JSON.stringify(schema)) as Json;
}

const AUTH_PARAM = {
  name: 'authorization',
  in: 'header',
  required: false,
  description: 'Bearer key: `Bearer <API_KEY>`.',
  schema: { type: 'string' },
};

function queryParameters(op: Operation): Json[] {
  if (!op.query) return [];
  const schema = plain(op.query) as { properties?: Record<string, Json>; required?: string[] };
  return Object.entries(schema.properties ?? {}).map(([name, s]) => ({
    name,
    in: 'query',
    required: schema.required?.includes(name) ?? false,
    ...(typeof s.description === 'string' ? { description: s.description } : {}),
    schema: s,
  }));
}

function errorResponses(op: Operation): Json {
  // Any request can be malformed (400: a broken URL, bad JSON), fail inside (500), meet an
  // engine that is down or a server shutting down (503), or an upstream that failed (502/504).
  const statuses = new Set<number>([400, 422, 500, 501, 502, 503, 504]);
  if (op.auth) [401, 429].forEach((s) => statuses.add(s));
  // Metered operations reach the outside world: a blocked address or robots.txt is a 403.
  if (op.pricing === 'metered') [402, 403].forEach((s) => statuses.add(s));
  if (op.path.includes('{')) statuses.add(404);
  if (op.body || op.multipartFiles) [413, 415].forEach((s) => statuses.add(s));
  const out: Json = {};
  for (const status of [...statuses].sort()) {
    if (status === 422) {
      out['422'] = { description: 'Validation failed', content: { 'application/json': { schema: { $ref: '#/components/schemas/ValidationError' } } } };
      continue;
    }
    const codes = Object.entries(ERRORS).filter(([, e]) => e.status === status).map(([code]) => `\`${code}\``);
    out[String(status)] = {
      description: `Error: ${codes.join(', ')}`,
      content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
      ...(status === 429 ? { headers: { 'Retry-After': { description: 'Seconds to wait.', schema: { type: 'integer' } } } } : {}),
    };
  }
  return out;
}

function operationObject(op: Operation): Json {
  const parameters = [
    ...pathParamNames(op.path).map((name) => ({ name, in: 'path', required: true, schema: plain(PATH_PARAMS[name] as TSchema) })),
    ...queryParameters(op),
    ...(op.auth ? [AUTH_PARAM] : []),
  ];
  const body = op.body
    ? { required: true, content: { 'application/json': { schema: plain(op.body) } } }
    : op.multipartFiles
      ? {
          required: true,
          content: {
            'multipart/form-data': {
              schema: {
                type: 'object',
                required: [...op.multipartFiles],
                properties: Object.fromEntries(op.multipartFiles.map((f) => [f, { type: 'string', format: 'binary' }])),
              },
            },
          },
        }
      : undefined;
  const ok = op.rawResponse
    ? {
        description: 'The fetched content, with the upstream content type.',
        headers: Object.fromEntries(Object.values(RAW_RESPONSE_HEADERS).map((h) => [h.name, { description: h.description, schema: { ...h.schema } }])),
        content: { '*/*': {} },
      }
    : { description: 'Success', content: { 'application/json': { schema: { $ref: '#/components/schemas/Success' } } } };
  return {
    operationId: op.id,
    tags: [op.tag],
    summary: op.summary,
    ...(op.description ? { description: op.description } : {}),
    ...(op.auth ? {} : { security: [] }),
    parameters,
    ...(body ? { requestBody: body } : {}),
    responses: { '200': ok, ...errorResponses(op) },
    ...(op.id === 'socialRun' ? { 'x-social-endpoints': socialEndpoints() } : {}),
  };
}

/** Each social endpoint: what it answers, its price and its input's component. */
function socialEndpoints(): Json[] {
  return SOCIAL_ENDPOINTS.map((e) => ({
    platform: e.platform,
    endpoint: e.endpoint,
    summary: e.summary,
    answers: e.answers,
    price: { key: e.price, credits: PRICES[e.price].credits },
    input: { $ref: `#/components/schemas/${socialInputName(e)}` },
  }));
}

export function buildOpenApi(options: { serverUrl?: string } = {}): Json {
  const paths: Record<string, Json> = {};
  for (const op of OPERATIONS) {
    paths[op.path] = { ...(paths[op.path] ?? {}), [op.method.toLowerCase()]: operationObject(op) };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Web Data Service API',
      version: API_VERSION,
      description:
        'Turns public web pages into markdown, HTML, links, screenshots and schema-shaped JSON; crawls and maps sites as jobs; watches pages and mentions; answers domain, company and lead questions.',
      license: { name: 'AGPL-3.0', identifier: 'AGPL-3.0-only' },
    },
    ...(options.serverUrl ? { servers: [{ url: options.serverUrl }] } : {}),
    tags: [...new Set(OPERATIONS.map((o) => o.tag))].map((name) => ({ name })),
    security: [{ bearerAuth: [] }],
    paths,
    components: {
      securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', description: 'The API key.' } },
      schemas: {
        Success: plain(SuccessEnvelope),
        Error: plain(ErrorEnvelope),
        ValidationError: plain(ValidationErrorBody),
        ...Object.fromEntries(SOCIAL_ENDPOINTS.map((e) => [socialInputName(e), plain(e.input)])),
      },
    },
  };
}
