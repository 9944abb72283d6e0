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
 * The MCP SDK (and server.ts with it) is imported by the first POST, not at start: a gateway
 * nobody asks over MCP never holds it (~7 MB of heap).
 */
import type { FastifyInstance, onRequestHookHandler } from 'fastify';
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
}

/** The SDK's transport and our server, imported once, on first use. */
let mcpModules: Promise<[typeof import('@modelcontextprotocol/sdk/server/streamableHttp.js'), typeof import('./server.js')]> | null = null;
const loadMcp = () => (mcpModules ??= Promise.all([import('@modelcontextprotocol/sdk/server/streamableHttp.js'), import('./server.js')]));

const NOT_ALLOWED = JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed: this server is stateless, send each message as a POST.' }, id: null });

export function registerMcp(app: FastifyInstance, deps: McpRouteDeps): void {
  app.route({
    method: ['GET', 'POST', 'DELETE'],
    url: MCP_PATH,
    bodyLimit: deps.bodyLimit,
    onRequest: deps.authorize,
    handler: async (request, reply) => {
      if (request.method !== 'POST') {
        return reply.code(405).header('allow', 'POST').header('content-type', 'application/json').header('x-request-id', request.id).send(NOT_ALLOWED);
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
      reply.raw.once('close', () => {
        void transport.close();
        void server.close();
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
