/**
 * The skeleton every local stand-in of an outside service shares: a node:http server on
 * 127.0.0.1 (a free port) that reads each request whole, records what `read` makes of it,
 * and answers what `route` replies for the current mode — or holds the request ('hang') until
 * the client gives up or the stand-in closes. An answer without a content type is JSON.
 */
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface StandInAnswer {
  readonly status: number;
  readonly body: string;
  readonly headers?: Readonly<Record<string, string>>;
}

export type StandInReply = StandInAnswer | 'hang';

export interface StandIn<Mode, Request> {
  /** `http://127.0.0.1:<port>`. */
  readonly base: string;
  /** Every request, in the order they arrived. */
  readonly requests: Request[];
  setMode(mode: Mode): void;
  /** Stops the server, ending hung requests. */
  close(): Promise<void>;
}

/** What a stand-in is told of a request: the request, its URL, its body as text and when it arrived (epoch ms). */
export type ReadRequest<Request> = (req: http.IncomingMessage, url: URL, body: string, atMs: number) => Request;

export type Route<Mode, Request> = (request: Request, mode: Mode, base: string) => StandInReply;

export async function startStandIn<Mode, Request>(initial: Mode, read: ReadRequest<Request>, route: Route<Mode, Request>): Promise<StandIn<Mode, Request>> {
  const requests: Request[] = [];
  const hung = new Set<http.ServerResponse>();
  let mode = initial;
  let base = '';
  const server = http.createServer((req, res) => {
    const atMs = Date.now();
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const request = read(req, new URL(req.url ?? '/', 'http://stand-in'), Buffer.concat(chunks).toString('utf8'), atMs);
      requests.push(request);
      const reply = route(request, mode, base);
      if (reply === 'hang') {
        hung.add(res);
        res.on('close', () => hung.delete(res));
        return;
      }
      res.writeHead(reply.status, { 'content-type': 'application/json; charset=utf-8', ...reply.headers });
      res.end(reply.body);
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    base,
    requests,
    setMode: (next) => void (mode = next),
    close: async () => {
      for (const res of hung) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
