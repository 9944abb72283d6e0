/**
 * One hop of the lean path of pipeline/runtime/net/http.ts (a request that says `lean`: a JSON
 * API read such as a store's products.json, or a service client's call), sent by node:http
 * itself rather than through got-scraping. got builds, merges and validates its options per
 * request (≈ 1.9 ms of CPU a request here, more than a 250-product page's own parsing), which
 * buys nothing an API read needs: this hop sends the same headers (the browser identity or
 * the service's User-Agent, merged by http.ts as for any request), without got-scraping's
 * browser-order rewriting of their names.
 *
 * Everything else is the stack's own, not a copy: http.ts checks every hop with the guard and
 * follows redirects, keeps the cookie jar, the timeout (its abort signal is this request's),
 * the retries and the error mapping; the connection is made by the same guarded agents
 * (agents.ts: the guard's `lookup`, IP literals checked), so an address is checked at connect
 * time as on the got path; the response goes through the same Intake (intake.ts: the 407, the
 * redirect, the declared and the counted size cap, the content policy). Only what got did for
 * the hop itself is done here: the body decoded (gzip, deflate raw or zlib-wrapped, br, and
 * zstd where Node has it, as got's decompress-response does, its Content-Encoding and
 * Content-Length then left out of the headers), a connection that closes before the body's
 * end an error (a retried hiccup), a URL's user info sent as Basic credentials.
 *
 * A request through a proxy is not lean: http.ts sends it through got-scraping's proxy agents.
 */
import http from 'node:http';
import https from 'node:https';
import type { Readable } from 'node:stream';
import zlib from 'node:zlib';
import type { GuardedAgents } from './agents.js';
import { flatHeaders, setCookiesOf } from './hop-parts.js';
import { Intake, type Hop } from './intake.js';
import type { ContentPolicy } from './content.js';

export interface LeanHopRequest {
  readonly url: URL;
  readonly headers: Record<string, string>;
  readonly method: 'GET' | 'POST';
  readonly body: string | Buffer;
  readonly agents: GuardedAgents;
  readonly verifyTls: boolean;
  readonly signal: AbortSignal;
  readonly maxBytes: number;
  readonly policy: ContentPolicy | null;
}

const zstd = (zlib as { createZstdDecompress?: () => zlib.Zlib & Readable }).createZstdDecompress;

/** The decoder of a Content-Encoding, given the body's first bytes; null: kept as received. */
function decoderFor(coding: string, first: Buffer): (NodeJS.ReadWriteStream & Readable) | null {
  if (coding === 'gzip' || coding === 'x-gzip') return zlib.createUnzip();
  // Servers send raw DEFLATE as often as zlib-wrapped: a zlib header has bit 3 of its first byte set.
  if (coding === 'deflate') return (first[0]! & 0x08) === 0 ? zlib.createInflateRaw() : zlib.createUnzip();
  if (coding === 'br') return zlib.createBrotliDecompress();
  if (coding === 'zstd' && zstd) return zstd() as unknown as NodeJS.ReadWriteStream & Readable;
  return null;
}

const DECODED = new Set(['gzip', 'x-gzip', 'deflate', 'br', ...(zstd ? ['zstd'] : [])]);

export function leanHop(request: LeanHopRequest): Promise<Hop> {
  return new Promise<Hop>((resolve, reject) => {
    const { url } = request;
    let req: http.ClientRequest | undefined;
    let res: http.IncomingMessage | undefined;
    let decoder: (NodeJS.ReadWriteStream & Readable) | null = null;
    const intake = new Intake({
      url,
      proxyUrl: null,
      maxBytes: request.maxBytes,
      policy: request.policy,
      resolve,
      reject,
      stop: () => {
        decoder?.destroy();
        res?.destroy();
        req?.destroy();
      },
    });
    const secure = url.protocol === 'https:';
    try {
      req = (secure ? https : http).request(url, {
        method: request.method,
        headers: request.headers,
        agent: secure ? request.agents.https : request.agents.http,
        signal: request.signal,
        ...(secure ? { rejectUnauthorized: request.verifyTls } : {}),
      });
    } catch (error) {
      // Node refuses a header it cannot send (a character outside Latin-1) before any connection.
      intake.fail(error);
      return;
    }
    req.on('error', (error) => intake.fail(error));
    req.once('response', (response) => {
      res = response;
      const headers = flatHeaders(response.headers);
      const coding = headers['content-encoding']?.trim().toLowerCase() ?? '';
      const decoded = DECODED.has(coding);
      if (decoded) {
        delete headers['content-encoding'];
        delete headers['content-length'];
      }
      if (!intake.head(response.statusCode ?? 0, headers, setCookiesOf(response))) return;
      response.on('error', (error) => intake.fail(error));
      response.once('close', () => {
        if (!response.complete) intake.fail(Object.assign(new Error('the connection closed before the body ended'), { code: 'ERR_STREAM_PREMATURE_CLOSE' }));
      });
      if (!decoded) {
        response.on('data', (chunk: Buffer) => intake.data(chunk));
        response.once('end', () => intake.end());
        return;
      }
      let started = false;
      response.on('data', (chunk: Buffer) => {
        if (intake.done) return;
        if (!started) {
          started = true;
          decoder = decoderFor(coding, chunk);
          if (!decoder) return intake.fail(new Error(`no decoder for ${coding}`));
          decoder.on('data', (out: Buffer) => intake.data(out));
          decoder.on('error', (error) => intake.fail(error));
          decoder.once('end', () => intake.end());
        }
        // Decoded as it comes: a bomb is stopped at the cap by `data`, whatever the backlog.
        if (!decoder!.write(chunk)) {
          response.pause();
          decoder!.once('drain', () => response.resume());
        }
      });
      response.once('end', () => {
        // An empty body with a coding has nothing to decode.
        if (!started) intake.end();
        else decoder?.end();
      });
    });
    req.end(request.method === 'POST' ? request.body : undefined);
  });
}
