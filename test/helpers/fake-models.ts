/**
 * Local fake model providers for tests: `startFakeOpenAI()` speaks OpenAI's Chat Completions
 * (`POST /v1/chat/completions`) and `startFakeAnthropic()` Anthropic's Messages
 * (`POST /v1/messages`), each a node:http server on 127.0.0.1 (a free port) answering the
 * providers' real response and error shapes (/work/shared/design/reference-shapes-wave2.md §2).
 * Point a config at one with `OPENAI_BASE_URL` / `ANTHROPIC_BASE_URL` / `MODEL_BASE_URL` =
 * `fake.url` (which ends in `/v1`); the production code path is unchanged.
 *
 * What each request gets, in order:
 * 1. the next reply queued with `fake.respondWith(...)` (success, error, 429 with
 *    `retry-after`, 5xx, 529, a hang, text that is not JSON, fenced JSON…);
 * 2. else the `script` function given at start, when it returns a reply;
 * 3. else the default: the requested schema (OpenAI's `response_format.json_schema.schema`,
 *    Anthropic's forced tool's `input_schema`) filled from `fake.answer` — each property the
 *    answer has, `null` for the other required ones (strict mode), a top-level `{items}`
 *    wrapper filled from an array answer; JSON mode (`json_object`) gets the answer itself;
 *    a call with no schema gets `fake.answerText`.
 * Options make the fakes behave like a provider's configuration: `apiKey` (any other key is
 * answered 401 with the sent key echoed in the body, as OpenAI does, so tests can check it
 * never leaks), `rejectJsonSchema` (OpenAI fake: 400 to `json_schema` response formats and
 * to tools, like Ollama or Mistral servers without structured output).
 * Every request is recorded in `fake.requests` (method, path, headers, parsed body). A hung
 * request is held until the client gives up or `fake.close()` is called.
 */
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: http.IncomingHttpHeaders;
  /** The parsed JSON body (null when there was none or it was not JSON). */
  readonly body: FakeBody;
}

/** The request body fields the fakes read; everything else is kept as sent. */
export interface FakeBody {
  readonly model?: string;
  readonly messages?: readonly { role: string; content: unknown }[];
  readonly system?: unknown;
  readonly response_format?: { type: string; json_schema?: { name: string; schema: Record<string, unknown>; strict?: boolean } };
  readonly tools?: readonly Record<string, unknown>[];
  readonly tool_choice?: unknown;
  readonly max_tokens?: number;
  readonly [key: string]: unknown;
}

/** One answer of a fake. Build them with `reply.*`. */
export type FakeReply =
  | { readonly kind: 'object'; readonly value: unknown; readonly finishReason?: string }
  | { readonly kind: 'text'; readonly text: string; readonly finishReason?: string }
  | { readonly kind: 'error'; readonly status: number; readonly type?: string; readonly code?: string | null; readonly message?: string; readonly headers?: Readonly<Record<string, string>> }
  | { readonly kind: 'hang' }
  | { readonly kind: 'raw'; readonly status: number; readonly body: string; readonly headers?: Readonly<Record<string, string>> };

export const reply = {
  /** Success carrying `value`: as the message's JSON content (OpenAI) or the tool_use input (Anthropic). */
  object: (value: unknown, finishReason?: string): FakeReply => ({ kind: 'object', value, finishReason }),
  /** Success with this exact text as the content (OpenAI) or a text block (Anthropic). */
  text: (text: string, finishReason?: string): FakeReply => ({ kind: 'text', text, finishReason }),
  /** Success with `value` as JSON inside a markdown ```json fence, as text. */
  fenced: (value: unknown): FakeReply => ({ kind: 'text', text: `Here is the data:\n\`\`\`json\n${JSON.stringify(value, null, 2)}\n\`\`\`\n` }),
  /** A provider error: the type and code default to the provider's own for the status. */
  error: (status: number, fields: { type?: string; code?: string | null; message?: string; headers?: Record<string, string> } = {}): FakeReply => ({ kind: 'error', status, ...fields }),
  /** 429 rate limited with these headers (e.g. `{'retry-after': '0'}`, `{'retry-after-ms': '50'}`). */
  rateLimited: (headers: Record<string, string> = { 'retry-after': '0' }): FakeReply => ({ kind: 'error', status: 429, headers }),
  /** OpenAI's 429 `insufficient_quota` (out of credit: not worth a retry). */
  insufficientQuota: (): FakeReply => ({ kind: 'error', status: 429, type: 'insufficient_quota', code: 'insufficient_quota', message: 'You exceeded your current quota, please check your plan and billing details.' }),
  /** Anthropic's 529 overloaded_error. */
  overloaded: (): FakeReply => ({ kind: 'error', status: 529 }),
  /** Never answers (until the client aborts or the fake closes). */
  hang: (): FakeReply => ({ kind: 'hang' }),
  /** Any status and body, as written. */
  raw: (status: number, body: string, headers?: Record<string, string>): FakeReply => ({ kind: 'raw', status, body, headers }),
};

export interface FakeOptions {
  /** Decides the answer to a request no queued reply answers; `undefined` falls to the default. */
  readonly script?: (request: FakeRequest, index: number) => FakeReply | undefined;
  /** The default mode's data (see the module comment). */
  readonly answer?: unknown;
  /** The default answer to a call without a schema (plain text, e.g. a summary). */
  readonly answerText?: string;
  /** The one key accepted; any other is answered 401. Unset: any key (or none) is accepted. */
  readonly apiKey?: string;
  /** OpenAI fake only: answer 400 to `json_schema` response formats and to tools. */
  readonly rejectJsonSchema?: boolean;
}

export interface FakeModel {
  /** The base URL, ending in `/v1`: the value for OPENAI_BASE_URL / ANTHROPIC_BASE_URL / MODEL_BASE_URL. */
  readonly url: string;
  readonly requests: FakeRequest[];
  /** What the default mode answers from; may be changed between calls. */
  answer: unknown;
  answerText: string;
  /** Queues replies for the next requests, in order. */
  respondWith(...replies: FakeReply[]): void;
  /** Requests received but not answered (hung). */
  readonly pending: () => number;
  close(): Promise<void>;
}

type Flavour = 'openai' | 'anthropic';

export function startFakeOpenAI(options: FakeOptions = {}): Promise<FakeModel> {
  return startFake('openai', options);
}

export function startFakeAnthropic(options: FakeOptions = {}): Promise<FakeModel> {
  return startFake('anthropic', options);
}

// ---- the server ---------------------------------------------------------------------------

async function startFake(flavour: Flavour, options: FakeOptions): Promise<FakeModel> {
  const queue: FakeReply[] = [];
  const requests: FakeRequest[] = [];
  const hung = new Set<http.ServerResponse>();
  const state: { answer: unknown; answerText: string } = { answer: options.answer ?? {}, answerText: options.answerText ?? 'A short fake summary.' };

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const request: FakeRequest = { method: req.method ?? 'GET', path: req.url ?? '/', headers: req.headers, body: parseBody(Buffer.concat(chunks).toString('utf8')) };
      requests.push(request);
      const chosen = queue.shift() ?? options.script?.(request, requests.length - 1) ?? routeDefault(flavour, request, options, state);
      if (chosen.kind === 'hang') {
        hung.add(res);
        res.on('close', () => hung.delete(res));
        return;
      }
      send(res, flavour === 'openai' ? openaiAnswer(chosen, request) : anthropicAnswer(chosen, request));
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    get answer() {
      return state.answer;
    },
    set answer(value: unknown) {
      state.answer = value;
    },
    get answerText() {
      return state.answerText;
    },
    set answerText(value: string) {
      state.answerText = value;
    },
    respondWith: (...replies) => void queue.push(...replies),
    pending: () => hung.size,
    close: async () => {
      for (const res of hung) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function parseBody(text: string): FakeBody {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null ? (value as FakeBody) : {};
  } catch {
    return {};
  }
}

interface Answer {
  status: number;
  body: string;
  headers: Record<string, string>;
}

function send(res: http.ServerResponse, answer: Answer): void {
  res.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers });
  res.end(answer.body);
}

/** The reply when nothing was queued or scripted: path and key checks, then the schema filled. */
function routeDefault(flavour: Flavour, request: FakeRequest, options: FakeOptions, state: { answer: unknown; answerText: string }): FakeReply {
  const expected = flavour === 'openai' ? '/v1/chat/completions' : '/v1/messages';
  if (request.method !== 'POST' || request.path.split('?')[0] !== expected) {
    return reply.error(404, { type: flavour === 'openai' ? 'invalid_request_error' : 'not_found_error', message: `Unknown request URL: ${request.method} ${request.path}` });
  }
  const sentKey = flavour === 'openai' ? bearer(request.headers.authorization) : header(request.headers['x-api-key']);
  if (options.apiKey !== undefined && sentKey !== options.apiKey) {
    // OpenAI quotes the key it was given in its 401 message (masked there; in full here, so a
    // test can prove the client never passes it on).
    return reply.error(401, { message: `Incorrect API key provided: ${sentKey ?? '(none)'}. You can find your API key at https://platform.openai.com/account/api-keys.` });
  }
  if (flavour === 'anthropic' && !request.headers['anthropic-version']) {
    return reply.error(400, { message: 'anthropic-version: header is required' });
  }
  const body = request.body;
  if (flavour === 'openai' && options.rejectJsonSchema && (body.response_format?.type === 'json_schema' || body.tools !== undefined)) {
    return reply.error(400, { type: 'invalid_request_error', code: null, message: "response_format json_schema is not supported by this model; tools are not supported either" });
  }
  const schema = flavour === 'openai' ? body.response_format?.json_schema?.schema : forcedToolSchema(body);
  if (schema) return reply.object(fillFromSchema(schema, state.answer));
  if (flavour === 'openai' && body.response_format?.type === 'json_object') return reply.object(state.answer);
  return reply.text(state.answerText);
}

/** The input schema of the tool the request forces, or of its only tool (a model that rejects forced tool use gets `auto`). */
function forcedToolSchema(body: FakeBody): Record<string, unknown> | undefined {
  const choice = body.tool_choice as { type?: string; name?: string } | undefined;
  const tool = choice?.type === 'tool' ? body.tools?.find((t) => t.name === choice.name) : body.tools?.length === 1 ? body.tools[0] : undefined;
  return tool?.input_schema as Record<string, unknown> | undefined;
}

function header(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

function bearer(value: string | undefined): string | undefined {
  return value?.startsWith('Bearer ') ? value.slice('Bearer '.length) : undefined;
}

/**
 * The answer shaped by the requested object schema: each property the answer has, `null` for
 * the required ones it lacks (what a strict-mode model returns for an optional field). An array
 * answer fills a schema whose one property is `items`.
 */
export function fillFromSchema(schema: Record<string, unknown>, answer: unknown): Record<string, unknown> {
  const properties = (schema.properties ?? {}) as Record<string, unknown>;
  const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
  const source: Record<string, unknown> = Array.isArray(answer) && 'items' in properties ? { items: answer } : typeof answer === 'object' && answer !== null ? (answer as Record<string, unknown>) : {};
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(properties)) {
    if (key in source) out[key] = source[key];
    else if (required.has(key)) out[key] = null;
  }
  return out;
}

// ---- OpenAI shapes ----------------------------------------------------------------------

const OPENAI_ERRORS: Record<number, { type: string; code: string | null }> = {
  400: { type: 'invalid_request_error', code: null },
  401: { type: 'invalid_request_error', code: 'invalid_api_key' },
  403: { type: 'invalid_request_error', code: 'unsupported_country_region_territory' },
  404: { type: 'invalid_request_error', code: 'model_not_found' },
  429: { type: 'requests', code: 'rate_limit_exceeded' },
  500: { type: 'server_error', code: null },
  503: { type: 'server_error', code: null },
};

let counter = 0;
const nextId = (prefix: string) => `${prefix}${(++counter).toString(36).padStart(8, '0')}`;
const tokens = (text: string) => Math.max(1, Math.ceil(text.length / 4));

function openaiAnswer(chosen: Exclude<FakeReply, { kind: 'hang' }>, request: FakeRequest): Answer {
  const headers = { 'x-request-id': nextId('req_') };
  if (chosen.kind === 'raw') return { status: chosen.status, body: chosen.body, headers: { ...headers, ...chosen.headers } };
  if (chosen.kind === 'error') {
    const known = OPENAI_ERRORS[chosen.status] ?? { type: 'server_error', code: null };
    const error = { message: chosen.message ?? `fake error ${chosen.status}`, type: chosen.type ?? known.type, param: null, code: chosen.code === undefined ? known.code : chosen.code };
    return { status: chosen.status, body: JSON.stringify({ error }), headers: { ...headers, ...chosen.headers } };
  }
  const content = chosen.kind === 'object' ? JSON.stringify(chosen.value) : chosen.text;
  const promptTokens = tokens(JSON.stringify(request.body.messages ?? []));
  const completionTokens = tokens(content);
  const body = {
    id: nextId('chatcmpl-'),
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model: request.body.model ?? 'fake',
    choices: [{ index: 0, message: { role: 'assistant', content, refusal: null }, logprobs: null, finish_reason: chosen.finishReason ?? 'stop' }],
    usage: { prompt_tokens: promptTokens, completion_tokens: completionTokens, total_tokens: promptTokens + completionTokens },
  };
  return { status: 200, body: JSON.stringify(body), headers };
}

// ---- Anthropic shapes -------------------------------------------------------------------

const ANTHROPIC_ERRORS: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  500: 'api_error',
  529: 'overloaded_error',
};

function anthropicAnswer(chosen: Exclude<FakeReply, { kind: 'hang' }>, request: FakeRequest): Answer {
  const headers = { 'request-id': nextId('req_') };
  if (chosen.kind === 'raw') return { status: chosen.status, body: chosen.body, headers: { ...headers, ...chosen.headers } };
  if (chosen.kind === 'error') {
    const type = chosen.type ?? ANTHROPIC_ERRORS[chosen.status] ?? 'api_error';
    return { status: chosen.status, body: JSON.stringify({ type: 'error', error: { type, message: chosen.message ?? (chosen.status === 529 ? 'Overloaded' : `fake error ${chosen.status}`) } }), headers: { ...headers, ...chosen.headers } };
  }
  const choice = request.body.tool_choice as { type?: string; name?: string } | undefined;
  const toolName = choice?.type === 'tool' ? choice.name : request.body.tools?.length === 1 ? (request.body.tools[0]?.name as string | undefined) : undefined;
  const content =
    chosen.kind === 'object' && toolName !== undefined
      ? [{ type: 'tool_use', id: nextId('toolu_'), name: toolName, input: chosen.value }]
      : [{ type: 'text', text: chosen.kind === 'object' ? JSON.stringify(chosen.value) : chosen.text }];
  const out = JSON.stringify(content);
  const body = {
    id: nextId('msg_'),
    type: 'message',
    role: 'assistant',
    model: request.body.model ?? 'fake',
    content,
    stop_reason: chosen.finishReason ?? (content[0]?.type === 'tool_use' ? 'tool_use' : 'end_turn'),
    stop_sequence: null,
    usage: { input_tokens: tokens(JSON.stringify(request.body.messages ?? []) + JSON.stringify(request.body.system ?? '')), output_tokens: tokens(out) },
  };
  return { status: 200, body: JSON.stringify(body), headers };
}
