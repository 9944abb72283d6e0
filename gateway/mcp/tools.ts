/**
 * The MCP tools: one per operation an agent would call, each named once here with the
 * operation of the contract (schemas/api/operations.ts) it calls. A tool's input schema is
 * generated from that operation's own schemas: its path parameters, its query and its JSON
 * body, under the API's own field names (`url`, `formats`, `job_id`, …), so the API's
 * validation is the one that applies. A tool call becomes one HTTP request to the API
 * (`requestFor`), made by the transport's caller (gateway/mcp/server.ts): keys, credits, rate
 * limits and the SSRF guard are the operation's, applied once.
 *
 * Two inputs are the tools' own: `waitSeconds` on the job tools (`crawl`, `batch_scrape`: how
 * long the tool waits for the job, reporting progress, before answering its status) and the
 * `file` object of `parse` (the file's name and content, as an agent has it, sent as the
 * multipart upload the operation takes).
 */
import { randomBytes } from 'node:crypto';
import type { TSchema } from '@sinclair/typebox';
import { OPERATIONS, PATH_PARAMS, pathParamNames, type Operation, type OperationId } from '../../schemas/api/operations.js';

/** A JSON Schema as MCP lists it: an object's schema. */
export interface ToolInputSchema {
  readonly type: 'object';
  readonly properties: Record<string, unknown>;
  readonly required?: string[];
  readonly additionalProperties?: boolean;
  readonly [key: string]: unknown;
}

export interface ToolSpec {
  readonly name: string;
  readonly operation: OperationId;
  readonly title: string;
  /** Said before the operation's own summary and description. */
  readonly description: string;
  /** A job start: the tool waits for the job (`waitSeconds`), reporting MCP progress, and answers its status. */
  readonly job?: 'crawl' | 'batch';
}

export interface Tool extends ToolSpec {
  readonly inputSchema: ToolInputSchema;
}

/** The most a job tool waits before answering a job still running, and its default. */
export const MAX_WAIT_SECONDS = 600;
export const DEFAULT_WAIT_SECONDS = 45;

const SPECS: readonly ToolSpec[] = [
  { name: 'scrape', operation: 'scrape', title: 'Scrape a page', description: 'Reads one web page and answers its content in the requested `formats` (markdown by default).' },
  {
    name: 'batch_scrape',
    operation: 'batchStart',
    title: 'Scrape many pages',
    description: 'Starts a batch scrape of `urls` and waits for it up to `waitSeconds`, reporting progress; answers the job status with its first documents (more with `batch_pages`).',
    job: 'batch',
  },
  { name: 'batch_status', operation: 'batchStatus', title: 'Batch status', description: "A batch job's status and its first documents." },
  { name: 'batch_pages', operation: 'batchPages', title: 'Batch pages', description: "A batch job's documents, a page at a time: pass the answer's `next` as `cursor`." },
  {
    name: 'crawl',
    operation: 'crawlStart',
    title: 'Crawl a site',
    description:
      'Starts a crawl from `url` and waits for it up to `waitSeconds`, reporting progress; answers the job status (`id`, `status`, `completed`, `total`) with its first documents. A crawl still running can be followed with `crawl_status` and read with `crawl_pages`.',
    job: 'crawl',
  },
  { name: 'crawl_status', operation: 'crawlStatus', title: 'Crawl status', description: "A crawl job's status and its first documents." },
  { name: 'crawl_pages', operation: 'crawlPages', title: 'Crawl pages', description: "A crawl job's documents, a page at a time: pass the answer's `next` as `cursor`." },
  { name: 'crawl_cancel', operation: 'crawlCancel', title: 'Cancel a crawl', description: 'Stops a running crawl: nothing more is fetched, a fetch still running is stopped (listed as job_ended, not charged); the pages read so far are kept.' },
  { name: 'map', operation: 'map', title: 'Map a site', description: 'Lists the URLs of a site without reading every page.' },
  { name: 'search', operation: 'search', title: 'Search the web', description: 'Web search; with `scrapeOptions`, each result page is read too.' },
  { name: 'serp', operation: 'serp', title: 'Search engine results', description: "A search engine's results page for `query`." },
  { name: 'places_search', operation: 'placesSearch', title: 'Search places', description: 'Places (businesses, points of interest) matching `query` near `location`.' },
  { name: 'extract', operation: 'extract', title: 'Extract JSON from pages', description: 'Structured data from each of `urls`, by `schema`, `template` or `prompt`.' },
  {
    name: 'parse',
    operation: 'parse',
    title: 'Parse a document',
    description: 'Reads a document (PDF, DOCX, HTML, markdown, text, JSON, XML) given as `file` (its name and content: text, or base64 for binary files) into markdown and metadata.',
  },
  { name: 'monitor_create', operation: 'monitorCreate', title: 'Create a monitor', description: 'Watches pages for changes on a schedule.' },
  { name: 'monitor_list', operation: 'monitorList', title: 'List monitors', description: "This key's monitors." },
  { name: 'monitor_get', operation: 'monitorGet', title: 'Get a monitor', description: 'One monitor.' },
  { name: 'monitor_update', operation: 'monitorUpdate', title: 'Update a monitor', description: 'Changes a monitor\'s fields, or pauses (`status: "paused"`) or resumes (`status: "active"`) it.' },
  { name: 'monitor_delete', operation: 'monitorDelete', title: 'Delete a monitor', description: 'Deletes a monitor.' },
  { name: 'monitor_run', operation: 'monitorRun', title: 'Run a monitor', description: "Runs a monitor's check now and answers it." },
  { name: 'monitor_checks', operation: 'monitorChecks', title: "A monitor's checks", description: "A monitor's checks, newest first, with what changed." },
  { name: 'mention_watch_create', operation: 'watchCreate', title: 'Create a mention watch', description: 'Watches platforms for posts mentioning keywords.' },
  { name: 'mention_watch_list', operation: 'watchList', title: 'List mention watches', description: "This key's mention watches." },
  { name: 'mention_watch_get', operation: 'watchGet', title: 'Get a mention watch', description: 'One mention watch.' },
  { name: 'mention_watch_delete', operation: 'watchDelete', title: 'Delete a mention watch', description: 'Deletes a mention watch; its mentions are kept.' },
  { name: 'mention_watch_test', operation: 'watchTestUnsaved', title: 'Test watch fields', description: 'Runs a collection of watch fields now without saving anything.' },
  { name: 'mentions_list', operation: 'mentionList', title: 'List mentions', description: "This key's mentions, newest found first." },
  { name: 'mention_update', operation: 'mentionUpdate', title: "Set a mention's status", description: "Sets a mention's status." },
  { name: 'domain', operation: 'domain', title: 'Look up a domain', description: 'Registration, DNS and backlinks of a domain.' },
  { name: 'domain_report', operation: 'domainReport', title: 'Domain report', description: "A domain's report: its pages, history and concerns." },
  { name: 'domain_snapshots', operation: 'domainSnapshots', title: 'Domain history', description: "A domain's archived snapshots over the years." },
  { name: 'domain_screen', operation: 'domainScreen', title: 'Screen domains', description: 'Which of many domains are registered, and their DNS.' },
  { name: 'company', operation: 'company', title: 'Company profile', description: "A company's profile read from its web site." },
  { name: 'products', operation: 'products', title: 'Products of a shop', description: "A shop's products read from its web site." },
  { name: 'posts', operation: 'posts', title: 'Posts of a site', description: "A site's posts (blog, news) read from its web site." },
  { name: 'leads_sources', operation: 'leadsSources', title: 'Find Leads sources', description: 'The sources a leads run covers for `country`, or for the country of the place `where`.' },
  {
    name: 'find_leads',
    operation: 'leadsStart',
    title: 'Find leads',
    description: 'Starts a run finding businesses of the kind `query` names in `where`, with their contacts; answers its id at once: read it with `leads_status` until it is no longer `partial`.',
  },
  { name: 'leads_status', operation: 'leadsStatus', title: 'Find Leads run', description: "A leads run's status, its leads and `summary.attribution` (the licence notices to show with them)." },
  { name: 'leads_cancel', operation: 'leadsCancel', title: 'Cancel a leads run', description: 'Stops a leads run; the leads found so far are kept (and charged).' },
  { name: 'social_catalog', operation: 'socialCatalog', title: 'Social endpoints', description: 'Every social platform endpoint this service runs, with its inputs.' },
  { name: 'social', operation: 'socialRun', title: 'Run a social endpoint', description: 'Runs one endpoint of the social catalog (`platform`, `endpoint`, and that endpoint\'s inputs).' },
  { name: 'templates', operation: 'templates', title: 'Extraction templates', description: 'The named templates `extract` and the `json` format accept.' },
];

const OPERATION_BY_ID = new Map<string, Operation>(OPERATIONS.map((op) => [op.id, op]));

export function operationOf(id: OperationId): Operation {
  const op = OPERATION_BY_ID.get(id);
  if (!op) throw new Error(`no operation ${id}`);
  return op;
}

/** A TypeBox schema as plain JSON Schema (its symbol keys dropped). */
function plain(schema: TSchema): Record<string, unknown> {
  return JSON.parse(JSON.stringify(schema)) as Record<string, unknown>;
}

const PARSE_FILE = {
  type: 'object',
  description: 'The document to read.',
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 255, description: 'File name, e.g. `report.pdf`; its extension tells the type when `contentType` does not.' },
    content: { type: 'string', description: 'The file: its text, or its bytes in base64 when `encoding` is `base64`.' },
    encoding: { type: 'string', enum: ['utf8', 'base64'], default: 'utf8', description: '`base64` for binary files (PDF, DOCX).' },
    contentType: { type: 'string', maxLength: 255, description: 'The media type, e.g. `application/pdf`.' },
  },
  required: ['name', 'content'],
  additionalProperties: false,
} as const;

/** The tool's input schema: path parameters, query and body of its operation, under their own names. */
function inputSchemaOf(spec: ToolSpec): ToolInputSchema {
  const op = operationOf(spec.operation);
  const properties: Record<string, unknown> = {};
  const required: string[] = [];
  let closed = true;
  for (const name of pathParamNames(op.path)) {
    const param = PATH_PARAMS[name];
    properties[name] = param ? plain(param) : { type: 'string' };
    required.push(name);
  }
  for (const part of [op.query, op.body]) {
    if (!part) continue;
    const schema = plain(part);
    Object.assign(properties, (schema.properties as Record<string, unknown> | undefined) ?? {});
    required.push(...((schema.required as string[] | undefined) ?? []));
    if (schema.additionalProperties !== false) closed = false;
  }
  if (op.multipartFiles) {
    properties.file = PARSE_FILE;
    required.push('file');
  }
  if (spec.job) {
    properties.waitSeconds = {
      type: 'integer',
      minimum: 0,
      maximum: MAX_WAIT_SECONDS,
      default: DEFAULT_WAIT_SECONDS,
      description: 'How long to wait for the job before answering its status (0: answer at once with the job id). Progress is reported while waiting.',
    };
  }
  const schema: ToolInputSchema = { type: 'object', properties, ...(required.length ? { required } : {}) };
  return closed ? { ...schema, additionalProperties: false } : schema;
}

function describe(spec: ToolSpec): string {
  const op = operationOf(spec.operation);
  const lines = [spec.description, `Calls ${op.method} ${op.path} (${op.summary}).`];
  if (op.description) lines.push(op.description);
  return lines.join('\n\n');
}

/** Every tool, each with its generated input schema. */
export const TOOLS: readonly Tool[] = SPECS.map((spec) => ({ ...spec, description: describe(spec), inputSchema: inputSchemaOf(spec) }));

/** One HTTP request to the API. */
export interface ApiRequest {
  readonly method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  /** The path with its query string. */
  readonly url: string;
  readonly headers: Record<string, string>;
  readonly body?: string | Buffer;
}

export class ToolInputError extends Error {}

function stringParam(args: Record<string, unknown>, name: string): string {
  const value = args[name];
  if (typeof value !== 'string' || value === '') throw new ToolInputError(`\`${name}\` is required (a string)`);
  return value;
}

/** The multipart body of an upload, one file part. */
function multipart(file: unknown): { body: Buffer; contentType: string } {
  if (!file || typeof file !== 'object') throw new ToolInputError('`file` is required: {name, content, encoding?, contentType?}');
  const f = file as Record<string, unknown>;
  const name = stringParam(f, 'name');
  if (typeof f.content !== 'string') throw new ToolInputError('`file.content` is required (a string)');
  const bytes = f.encoding === 'base64' ? Buffer.from(f.content, 'base64') : Buffer.from(f.content, 'utf8');
  const type = typeof f.contentType === 'string' && /^[\w.+-]+\/[\w.+-]+$/.test(f.contentType) ? f.contentType : 'application/octet-stream';
  const boundary = `----wds-mcp-${randomBytes(12).toString('hex')}`;
  const safeName = name.replace(/["\r\n\\]/g, '_');
  const head = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${safeName}"\r\nContent-Type: ${type}\r\n\r\n`);
  return { body: Buffer.concat([head, bytes, Buffer.from(`\r\n--${boundary}--\r\n`)]), contentType: `multipart/form-data; boundary=${boundary}` };
}

/**
 * The API request a tool call makes: path parameters into the path, query fields into the
 * query string, the rest (the body's fields) as the JSON body. Fields the operation does not
 * take are left in the body for the API's validation to name.
 */
export function requestFor(tool: Tool, args: Record<string, unknown>): ApiRequest {
  const op = operationOf(tool.operation);
  const rest: Record<string, unknown> = { ...args };
  delete rest.waitSeconds;
  let path = op.path;
  for (const name of pathParamNames(op.path)) {
    path = path.replace(`{${name}}`, encodeURIComponent(stringParam(args, name)));
    delete rest[name];
  }
  const query = new URLSearchParams();
  const queryFields = Object.keys(((op.query as { properties?: object } | undefined)?.properties ?? {}) as object);
  for (const name of queryFields) {
    const value = rest[name];
    delete rest[name];
    if (value === undefined || value === null) continue;
    query.append(name, typeof value === 'object' ? JSON.stringify(value) : String(value));
  }
  const url = query.size ? `${path}?${query.toString()}` : path;
  if (op.multipartFiles) {
    const { body, contentType } = multipart(rest.file);
    return { method: op.method, url, headers: { 'content-type': contentType }, body };
  }
  if (op.body) return { method: op.method, url, headers: { 'content-type': 'application/json' }, body: JSON.stringify(rest) };
  const unknown = Object.keys(rest);
  if (unknown.length) throw new ToolInputError(`${unknown.map((n) => `\`${n}\``).join(', ')}: not an input of ${tool.name}`);
  return { method: op.method, url, headers: {} };
}

/** The tools a gateway serves: those whose operation has a handler in this build. */
export function servedTools(served: (id: OperationId) => boolean): readonly Tool[] {
  return TOOLS.filter((tool) => served(tool.operation));
}
