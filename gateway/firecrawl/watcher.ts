/**
 * Firecrawl's crawl watcher: a WebSocket at `/firecrawl/v2/crawl/{id}` (and
 * `/firecrawl/v2/batch/scrape/{id}`, and the v1 paths) with the API key as the subprotocol,
 * as the SDKs' `Watcher` opens it. On connect it sends `{type: "catchup", data: <status with
 * every document so far>}`, then `{type: "document", data}` for each page as it is stored,
 * and `{type: "done", data: {status, total, completed, creditsUsed}}` when the job completed,
 * or `{type: "error", error, status}` when it failed or was cancelled; then it closes.
 *
 * Nothing here reads a job itself: the key, its rate limit and the job's owner are checked by
 * our own status operation (GET /v1/crawl/{id}, /v1/batch/{id}), asked in-process with the
 * subprotocol's key before the upgrade is accepted (its 401, 404 refuse the upgrade), and the
 * documents are paged from /v1/…/pages with its cursor when the status shows more settled,
 * the status read every WATCH_POLL_MS, as a client would (counted against the key's rate limit).
 * Frames from the client are read only for close and ping; a connection lives at most
 * WATCH_MAX_MS.
 */
import { createHash } from 'node:crypto';
import { ServerResponse, type IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import type { Logger } from '../../pipeline/runtime/log.js';
import { ourAnswer } from './edge.js';
import { documentOf, isObject, jobStatusOf, type Json } from './translate.js';

/** How often a watched job's status is read (each read, and each page listing after a change, counts against the key's rate limit). */
export const WATCH_POLL_MS = 1000;
export const WATCH_MAX_MS = 24 * 3_600_000;
/** Largest frame read from a client (it has nothing to send but close and ping). */
const MAX_CLIENT_FRAME = 64 * 1024;
const GUID = '258EAFA5-E914-47DA-95CA-C5AB0DC85B11';
const PATH = /^\/firecrawl\/v[12]\/(crawl|batch\/scrape)\/([\w-]{1,128})\/?$/;
/** A subprotocol is an HTTP token. */
const TOKEN = /^[!#$%&'*+.^_`|~\w-]{1,512}$/;


/** One server frame (never masked). */
function frame(opcode: number, payload: Buffer): Buffer {
  const length = payload.length;
  const head = length < 126 ? Buffer.from([0x80 | opcode, length]) : length < 65536 ? Buffer.alloc(4) : Buffer.alloc(10);
  if (length >= 126 && length < 65536) {
    head[0] = 0x80 | opcode;
    head[1] = 126;
    head.writeUInt16BE(length, 2);
  } else if (length >= 65536) {
    head[0] = 0x80 | opcode;
    head[1] = 127;
    head.writeBigUInt64BE(BigInt(length), 2);
  }
  return Buffer.concat([head, payload]);
}

function refuse(socket: Duplex, status: number, body: Json): void {
  const text = JSON.stringify(body);
  socket.end(`HTTP/1.1 ${status} ${status === 401 ? 'Unauthorized' : status === 404 ? 'Not Found' : 'Bad Request'}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(text)}\r\nConnection: close\r\n\r\n${text}`);
}

/**
 * The HTTP server's `shouldUpgradeCallback` (gateway/app.ts): only a WebSocket upgrade under
 * /firecrawl/ is taken as one; any other request carrying `Upgrade` (a client offering h2c, a
 * WebSocket elsewhere) is answered as the plain request it also is.
 */
export function isWatcherUpgrade(req: IncomingMessage): boolean {
  return String(req.headers.upgrade ?? '').toLowerCase() === 'websocket' && (req.url ?? '').startsWith('/firecrawl/');
}

export function registerWatcher(app: FastifyInstance, log: Logger): void {
  app.server.on('upgrade', (req: IncomingMessage, socket: Duplex) => {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    socket.on('error', () => socket.destroy());
    if (!isWatcherUpgrade(req)) return plainRequest(app, req, socket);
    void watch(app, log, req, socket, path).catch((error: unknown) => {
      log.warn({ err: error }, 'firecrawl watcher failed');
      socket.destroy();
    });
  });
}

/**
 * A request that offered some other upgrade, on a Node without `shouldUpgradeCallback` (before
 * 22.21): served as the plain request it also is, on a connection closed after the answer. Its
 * body would already be past the HTTP parser: one with a body is refused (400).
 */
function plainRequest(app: FastifyInstance, req: IncomingMessage, socket: Duplex): void {
  if (req.headers['transfer-encoding'] || Number(req.headers['content-length'] ?? 0) > 0) {
    return refuse(socket, 400, { success: false, error: 'a request with a body cannot offer an upgrade here: send it without `Upgrade`' });
  }
  const res = new ServerResponse(req);
  res.shouldKeepAlive = false;
  res.assignSocket(socket as Socket);
  res.on('finish', () => socket.end());
  app.server.emit('request', req, res);
}

async function watch(app: FastifyInstance, log: Logger, req: IncomingMessage, socket: Duplex, path: string): Promise<void> {
  const match = PATH.exec(path);
  const wsKey = req.headers['sec-websocket-key'];
  if (!match || typeof wsKey !== 'string' || req.headers['sec-websocket-version'] !== '13') {
    return refuse(socket, 400, { success: false, error: 'a WebSocket upgrade of GET /firecrawl/v2/crawl/{id} or /batch/scrape/{id} is expected' });
  }
  const protocol = String(req.headers['sec-websocket-protocol'] ?? '').split(',')[0]?.trim() ?? '';
  if (!TOKEN.test(protocol)) return refuse(socket, 401, { success: false, error: 'send the API key as the WebSocket subprotocol' });
  const ourJob = match[1] === 'crawl' && !match[2]?.startsWith('batch_') ? '/v1/crawl' : '/v1/batch';
  const id = match[2] as string;
  const headers = { authorization: `Bearer ${protocol}` };
  const remoteAddress = req.socket.remoteAddress ?? '127.0.0.1';
  const ask = async (url: string): Promise<{ status: number; body: Json }> => {
    const { status, body } = await ourAnswer(app, { method: 'GET', url, headers, remoteAddress });
    return { status, body };
  };
  const first = await ask(`${ourJob}/${encodeURIComponent(id)}`);
  if (first.status !== 200) {
    const error = isObject(first.body.error) ? String(first.body.error.message) : 'the job cannot be watched';
    return refuse(socket, first.status === 401 || first.status === 404 ? first.status : 400, { success: false, error });
  }
  const accept = createHash('sha1').update(wsKey + GUID).digest('base64');
  socket.write(`HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${accept}\r\nSec-WebSocket-Protocol: ${protocol}\r\n\r\n`);

  let open = true;
  const started = Date.now();
  const send = (message: Json) => {
    if (open && socket.writable) socket.write(frame(0x1, Buffer.from(JSON.stringify(message))));
  };
  const close = () => {
    if (!open) return;
    open = false;
    if (socket.writable) socket.end(frame(0x8, Buffer.from([0x03, 0xe8])));
  };
  socket.on('close', () => {
    open = false;
  });
  // The client's frames: close is answered, ping ponged, the rest ignored.
  let pending = Buffer.alloc(0);
  socket.on('data', (chunk: Buffer) => {
    pending = Buffer.concat([pending, chunk]);
    while (pending.length >= 2) {
      const opcode = (pending[0] as number) & 0x0f;
      let length = (pending[1] as number) & 0x7f;
      let offset = 2;
      if (length === 126) {
        if (pending.length < 4) return;
        length = pending.readUInt16BE(2);
        offset = 4;
      } else if (length === 127) {
        if (pending.length < 10) return;
        const big = pending.readBigUInt64BE(2);
        if (big > BigInt(MAX_CLIENT_FRAME)) return void socket.destroy();
        length = Number(big);
        offset = 10;
      }
      if (length > MAX_CLIENT_FRAME) return void socket.destroy();
      const masked = ((pending[1] as number) & 0x80) !== 0;
      const total = offset + (masked ? 4 : 0) + length;
      if (pending.length < total) return;
      const mask = masked ? pending.subarray(offset, offset + 4) : null;
      const payload = Buffer.from(pending.subarray(total - length, total));
      if (mask) for (let i = 0; i < payload.length; i++) payload[i] = (payload[i] as number) ^ (mask[i % 4] as number);
      pending = pending.subarray(total);
      if (opcode === 0x8) return close();
      if (opcode === 0x9 && open) socket.write(frame(0xa, payload));
    }
  });

  const job = (body: Json): Json => (isObject(body.data) ? body.data : {});
  let status = job(first.body);
  let cursor: string | null = null;
  const documents: Json[] = [];
  /** Every page stored after the cursor, in order. */
  const drain = async (): Promise<Json[]> => {
    const out: Json[] = [];
    for (;;) {
      const params = new URLSearchParams({ limit: '200' });
      if (cursor) params.set('cursor', cursor);
      const page = await ask(`${ourJob}/${encodeURIComponent(id)}/pages?${params}`);
      if (page.status !== 200) throw new Error(`pages answered ${page.status}`);
      const data = job(page.body);
      const docs = Array.isArray(data.data) ? (data.data as Json[]) : [];
      out.push(...docs.map((d) => documentOf(d, null)));
      if (typeof data.next === 'string') cursor = data.next;
      if (docs.length < 200 || typeof data.next !== 'string') return out;
    }
  };
  const summary = () => ({ status: jobStatusOf(status.status), total: status.total ?? 0, completed: status.completed ?? 0, creditsUsed: status.creditsUsed ?? 0, expiresAt: status.expiresAt });
  documents.push(...(await drain()));
  send({ type: 'catchup', data: { ...summary(), data: documents } });
  const settledOf = (s: Json) => Number(s.completed ?? 0) + Number(s.failed ?? 0);
  let listed = settledOf(status);
  while (open && Date.now() - started < WATCH_MAX_MS) {
    const ended = ['completed', 'failed', 'cancelled'].includes(String(status.status));
    // The pages are listed again only when the job settled more of them (or ended).
    if (ended || settledOf(status) !== listed) {
      listed = settledOf(status);
      for (const doc of await drain()) send({ type: 'document', data: doc });
    }
    if (ended) {
      if (status.status === 'completed') send({ type: 'done', data: { ...summary(), data: [] } });
      else send({ type: 'error', error: typeof status.error === 'string' && status.error ? status.error : `the job was ${String(status.status)}`, status: status.status, data: summary() });
      return close();
    }
    await new Promise((r) => setTimeout(r, WATCH_POLL_MS));
    if (!open) return;
    const now = await ask(`${ourJob}/${encodeURIComponent(id)}`);
    if (now.status !== 200) {
      send({ type: 'error', error: isObject(now.body.error) ? String(now.body.error.message) : `status answered ${now.status}` });
      return close();
    }
    status = job(now.body);
  }
  log.debug({ jobId: id }, 'firecrawl watcher ended');
  close();
}
