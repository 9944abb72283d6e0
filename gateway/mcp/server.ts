/**
 * The MCP server of the service, on the official SDK's `McpServer`. Its tools are answered
 * by handlers set on the underlying protocol server (`mcp.server`) rather than through
 * `registerTool`, which takes a tool's input as a Zod schema: ours are the contract's JSON
 * Schemas, listed as they are (gateway/mcp/tools.ts). It is transport-free: given a caller of the HTTP API, it lists the
 * tools and answers a call with one API request (a job tool: the start, then its status until
 * the job ends or the wait is over, each change reported as an MCP progress notification
 * when the client sent a `progressToken`). The answer is the operation's `data` as text and
 * as structured content; a failure is an `isError` result whose text begins with our error
 * code (`url_blocked: …`, `validation_failed: …`) and whose structured content is `{error}`.
 *
 * The Streamable HTTP transport at /mcp calls the API in-process (gateway/mcp/http.ts), the
 * stdio command over HTTP (gateway/mcp/stdio.ts).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError, type CallToolResult, type ServerNotification } from '@modelcontextprotocol/sdk/types.js';
import { depthOver } from '../../pipeline/runtime/json-limits.js';
import { DEFAULT_WAIT_SECONDS, MAX_WAIT_SECONDS, requestFor, ToolInputError, type ApiRequest, type Tool } from './tools.js';

export interface ApiResponse {
  readonly status: number;
  /** The response body as text. */
  readonly body: string;
}

/** Makes one request to the API with the caller's key; rejects only when the API could not be reached. */
export type ApiCaller = (request: ApiRequest, signal: AbortSignal) => Promise<ApiResponse>;

/** How often a job tool reads its job's status while waiting. */
export const JOB_POLL_MS = 500;
/** The pause between a job's last progress notification and the answer (see `followJob`). */
const FINAL_PROGRESS_GAP_MS = 100;
/** BODY_MAX_DEPTH's default, for a server that is not given the service's setting (stdio against a running service). */
export const DEFAULT_MAX_DEPTH = 64;

const INSTRUCTIONS =
  'Web Data Service: read web pages (scrape, batch_scrape, crawl, map), search the web (search, serp, places_search), ' +
  'extract structured data (extract, parse), watch pages and mentions (monitor_*, mention_*), and look up domains and companies. ' +
  "Each tool takes the HTTP API's own fields and answers the API's `data`; each call is charged to the API key as the API charges it.";

type Json = Record<string, unknown>;

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function ok(data: Json, note?: string): CallToolResult {
  const content: CallToolResult['content'] = [{ type: 'text', text: JSON.stringify(data) }];
  if (note) content.push({ type: 'text', text: note });
  return { content, structuredContent: data };
}

export function errorResult(code: string, message: string, extra: Json = {}): CallToolResult {
  return {
    isError: true,
    content: [{ type: 'text', text: `${code}: ${message}` }],
    structuredContent: { error: { code, message, ...extra } },
  };
}

interface Detail {
  loc?: unknown[];
  msg?: string;
}

/** An API answer as a tool result: its data, or its error. */
function resultOf(response: ApiResponse): { data: Json } | { error: CallToolResult } {
  const body = parseJson(response.body) as Json | undefined;
  if (response.status >= 200 && response.status < 300 && body && body.success === true && body.data && typeof body.data === 'object') {
    return { data: body.data as Json };
  }
  if (body && Array.isArray(body.detail)) {
    const details = body.detail as Detail[];
    const message = details.map((d) => `${(d.loc ?? []).join('.')}: ${d.msg ?? 'invalid'}`).join('; ');
    return { error: errorResult('validation_failed', message, { status: response.status, detail: details }) };
  }
  const error = body?.error as Json | undefined;
  if (error && typeof error.code === 'string') {
    const { code, message, ...rest } = error;
    return { error: errorResult(code, typeof message === 'string' ? message : code, { status: response.status, ...rest }) };
  }
  return { error: errorResult('unexpected_response', `the API answered ${response.status} with ${response.body.slice(0, 200)}`, { status: response.status }) };
}

interface CallExtra {
  readonly signal: AbortSignal;
  readonly _meta?: { progressToken?: string | number };
  sendNotification(notification: ServerNotification): Promise<void>;
}

/** A request the API did not answer: the call was cancelled, or the service could not be reached. */
function unreachable(error: unknown, signal: AbortSignal): CallToolResult {
  if (signal.aborted) return errorResult('cancelled', 'the call was cancelled');
  return errorResult('service_unreachable', `could not reach the Web Data Service: ${error instanceof Error ? error.message : String(error)}`);
}

const ENDED = new Set(['completed', 'failed', 'cancelled']);

/** A job tool: the start's answer, then the job's status until it ends, the wait is over or the call is cancelled. */
async function followJob(tool: Tool, started: Json, args: Json, api: ApiCaller, extra: CallExtra): Promise<CallToolResult> {
  const id = started.id;
  if (typeof id !== 'string') return ok(started);
  const given = typeof args.waitSeconds === 'number' && Number.isFinite(args.waitSeconds) ? args.waitSeconds : DEFAULT_WAIT_SECONDS;
  const waitMs = Math.max(0, Math.min(MAX_WAIT_SECONDS, given)) * 1000;
  const statusPath = `/v1/${tool.job}/${encodeURIComponent(id)}`;
  const pagesTool = `${tool.job === 'crawl' ? 'crawl' : 'batch'}_pages`;
  const token = extra._meta?.progressToken;
  const overWait = new AbortController();
  const timer = setTimeout(() => overWait.abort(), waitMs);
  const stopWaiting = AbortSignal.any([overWait.signal, extra.signal]);
  let reported = -1;
  try {
    for (;;) {
      let response: ApiResponse;
      try {
        response = await api({ method: 'GET', url: statusPath, headers: {} }, extra.signal);
      } catch (error) {
        return unreachable(error, extra.signal);
      }
      const read = resultOf(response);
      if ('error' in read) return read.error;
      const status = read.data;
      const done = Number(status.completed ?? 0) + Number(status.failed ?? 0);
      const total = Number(status.total ?? 0);
      if (token !== undefined && done !== reported) {
        reported = done;
        await extra
          .sendNotification({
            method: 'notifications/progress',
            params: { progressToken: token, progress: done, ...(total >= done && total > 0 ? { total } : {}), message: `${String(status.status)}: ${done} of ${total} pages` },
          })
          .catch(() => undefined);
      }
      if (ENDED.has(String(status.status))) {
        // The SDK's client runs a notification's handler a tick after it reads it but drops
        // the call's progress handler as soon as it reads the answer: a last notification
        // read together with the answer is lost (and reported as for an unknown token).
        // A moment between them lets the client read the two apart.
        if (token !== undefined) await sleep(FINAL_PROGRESS_GAP_MS);
        return ok(status, status.next ? `More documents: call ${pagesTool} with job_id "${id}" and cursor "${String(status.next)}".` : undefined);
      }
      if (stopWaiting.aborted) {
        return ok(status, `The job is still ${String(status.status)}: call ${tool.job}_status with job_id "${id}" to follow it.`);
      }
      await sleep(JOB_POLL_MS, undefined, { signal: stopWaiting }).catch(() => undefined);
    }
  } finally {
    clearTimeout(timer);
  }
}

export interface McpServerOptions {
  /** The service's version, which the server reports. */
  readonly version: string;
  /** The deepest nesting of objects and arrays a call's arguments may have (BODY_MAX_DEPTH). */
  readonly maxDepth: number;
}

/** Answers one tool call through the API. */
export async function callTool(tool: Tool, args: Json, api: ApiCaller, extra: CallExtra, maxDepth = DEFAULT_MAX_DEPTH): Promise<CallToolResult> {
  // Checked without recursion before anything walks the arguments (the API checks its body again).
  if (depthOver(args, maxDepth)) return errorResult('validation_failed', `the arguments nest objects and arrays deeper than ${maxDepth} levels`);
  let request: ApiRequest;
  try {
    request = requestFor(tool, args);
  } catch (error) {
    if (error instanceof ToolInputError) return errorResult('validation_failed', error.message);
    throw error;
  }
  let response: ApiResponse;
  try {
    response = await api(request, extra.signal);
  } catch (error) {
    return unreachable(error, extra.signal);
  }
  const read = resultOf(response);
  if ('error' in read) return read.error;
  if (tool.job) return followJob(tool, read.data, args, api, extra);
  return ok(read.data);
}

/** A server with `tools`, each call made through `api`. */
export function createMcpServer(tools: readonly Tool[], api: ApiCaller, options: McpServerOptions): McpServer {
  const mcp = new McpServer({ name: 'web-data-service', title: 'Web Data Service', version: options.version }, { capabilities: { tools: {} }, instructions: INSTRUCTIONS });
  const server = mcp.server;
  const byName = new Map(tools.map((t) => [t.name, t]));
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: tools.map((t) => ({ name: t.name, title: t.title, description: t.description, inputSchema: t.inputSchema })),
  }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const tool = byName.get(request.params.name);
    if (!tool) throw new McpError(ErrorCode.InvalidParams, `no tool ${request.params.name}`);
    return callTool(tool, request.params.arguments ?? {}, api, extra, options.maxDepth);
  });
  return mcp;
}
