/**
 * MCP over Streamable HTTP at `/mcp` on the gateway, stateless: each POST is answered by a
 * server and transport of its own (the SDK's `StreamableHTTPServerTransport` with no session
 * id), so any gateway process answers any request and nothing is kept between them. A call's
 * answer, and its progress notifications, come back on the POST's event stream. GET and
 * DELETE (the session stream and session end of stateful servers) answer 405.
 *
 * The key is the operations' own: `Authorization: Bearer <key>` is checked by the gateway's
 * key hook before the route runs (401 without a key or with an unknown one, the rate limit
 * after it), and each tool call is one request to the operation's route made in-process
 * (`app.inject`) with that same header: its validation, credits, rate limit and SSRF guard
 * apply exactly as to a caller of the HTTP API.
 *
 * A body refused before the route runs (not JSON, a member naming a prototype, too large, not
 * JSON's media type) is answered as the SDK's transport answers one it refuses itself: a
 * JSON-RPC error with id null, at the same HTTP status (`mcpRefusal`).
 *
 * The MCP SDK (and server.ts with it) is imported by the first POST, not at start: a gateway
 * nobody asks over MCP never holds it (~7 MB of heap).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest, onRequestHookHandler } from 'fastify';
import type { ErrorCode } from '../../schemas/errors.js';
import type { Logger } from '../../pipeline/runtime/log.js';
import type { ApiCaller } from './server.js';
import type { Tool } from './tools.js';

export const MCP_PATH = '/mcp';

export interface McpRouteDeps {
  /** The gateway's key hook (gateway/routes.ts): 401 without a valid key, then the rate limit. */
  readonly authorize: onRequestHookHandler;
  readonly tools: readonly Tool[];
  readonly version: string;
  /** BODY_MAX_DEPTH: the deepest a call's arguments may nest. */
  readonly maxDepth: number;
  /**
   * The largest MCP message accepted: room for `parse`'s file in base64 up to UPLOAD_LIMIT_BYTES
   * (the operation's own limits then apply to the request the call makes).
   */
  readonly bodyLimit: number;
  readonly log: Logger;
  /** The gateway's own answer to an error (the envelope and the access line): a refused key, say. */
  readonly answerError: (error: unknown, request: FastifyRequest, reply: FastifyReply) => void;
  /** A failure as the gateway reads it (gateway/replies.ts `clientFailure`): its code, message and a 422's details; null for a 500. */
  readonly failureOf: (error: unknown) => { code: ErrorCode; message: string; detail?: readonly unknown[] } | null;
  /** Writes the request's access line, once it is answered. */
  readonly accessLine: (request: FastifyRequest, reply: FastifyReply) => void;
}

/** The SDK's transport and our server, imported once, on first use. */
let mcpModules: Promise<[typeof import('@modelcontextprotocol/sdk/server/streamableHttp.js'), typeof import('./server.js')]> | null = null;
const loadMcp = () => (mcpModules ??= Promise.all([import('@modelcontextprotocol/sdk/server/streamableHttp.js'), import('./server.js')]));

const NOT_ALLOWED = JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed: this server is stateless, send each message as a POST.' }, id: null });

const rpcError = (code: number, message: string, data?: unknown): string =>
  JSON.stringify({ jsonrpc: '2.0', error: { code, message, ...(data === undefined ? {} : { data }) }, id: null });

/**
 * A body the gateway refused before the MCP route ran, as a JSON-RPC error (status and body),
 * in the SDK transport's codes and words (its `createJsonErrorResponse`); null for any other
 * error, which the gateway answers as for every route.
 */
export function mcpRefusal(failure: { code: ErrorCode; message: string; detail?: readonly unknown[] } | null): { status: number; body: string } | null {
  switch (failure?.code) {
    case 'validation_failed':
      return { status: 400, body: rpcError(-32600, `Invalid Request: ${failure.message}`, { detail: failure.detail ?? [] }) };
    case 'invalid_json':
      return { status: 400, body: rpcError(-32700, 'Parse error: Invalid JSON', { message: failure.message }) };
    case 'payload_too_large':
      return { status: 413, body: rpcError(-32000, `Payload Too Large: ${failure.message}`) };
    case 'unsupported_media_type':
      return { status: 415, body: rpcError(-32000, 'Unsupported Media Type: Content-Type must be application/json') };
    default:
      return null;
  }
}

export function registerMcp(app: FastifyInstance, deps: McpRouteDeps): void {
  // Its own scope, for its own error handler: the refusals in JSON-RPC, everything else as the gateway answers it.
  void app.register(async (scope) => {
    scope.setErrorHandler((error, request, reply) => {
      const refusal = mcpRefusal(deps.failureOf(error));
      if (!refusal) return deps.answerError(error, request, reply);
      reply.code(refusal.status).header('x-request-id', request.id).header('content-type', 'application/json').send(refusal.body);
      deps.accessLine(request, reply);
    });
    routeMcp(scope, app, deps);
  });
}

/** The route, in `scope`; its tool calls are made to `app`, where every operation is. */
function routeMcp(scope: FastifyInstance, app: FastifyInstance, deps: McpRouteDeps): void {
  scope.route({
    method: ['GET', 'POST', 'DELETE'],
    url: MCP_PATH,
    bodyLimit: deps.bodyLimit,
    onRequest: deps.authorize,
    handler: async (request, reply) => {
      if (request.method !== 'POST') {
        reply.code(405).header('allow', 'POST').header('content-type', 'application/json').header('x-request-id', request.id).send(NOT_ALLOWED);
        deps.accessLine(request, reply);
        return reply;
      }
      const authorization = request.headers.authorization ?? '';
      const api: ApiCaller = async (call) => {
        const res = await app.inject({
          method: call.method,
          url: call.url,
          headers: { ...call.headers, authorization, 'x-request-id': `${request.id}.mcp` },
          ...(call.body === undefined ? {} : { payload: call.body }),
        });
        return { status: res.statusCode, body: res.body };
      };
      const [{ StreamableHTTPServerTransport }, { createMcpServer }] = await loadMcp();
      const server = createMcpServer(deps.tools, api, { version: deps.version, maxDepth: deps.maxDepth });
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
      reply.hijack();
      reply.raw.setHeader('x-request-id', request.id);
      // Its access line when the answer's stream has ended: the call's whole time.
      reply.raw.once('close', () => {
        void transport.close();
        void server.close();
        deps.accessLine(request, reply);
      });
      try {
        await server.connect(transport);
        await transport.handleRequest(request.raw, reply.raw, request.body);
      } catch (error) {
        deps.log.child({ reqId: request.id }).warn({ err: error }, 'MCP request failed');
        if (!reply.raw.headersSent) {
          reply.raw.writeHead(500, { 'content-type': 'application/json' });
          reply.raw.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32603, message: 'internal error' }, id: null }));
        }
      }
      return reply;
    },
  });
}
