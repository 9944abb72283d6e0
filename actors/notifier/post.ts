/**
 * One webhook attempt: a JSON POST through the guarded agents (pipeline/runtime/net/agents.ts), so
 * the receiver's address is checked at connect time too. Redirects are not followed (a 3xx
 * is the receiver's answer). The answer's body is drained and dropped; only its status matters.
 */
import http from 'node:http';
import https from 'node:https';
import type { GuardedAgents } from '../../pipeline/runtime/net/agents.js';

export interface PostResult {
  /** The HTTP status, or 0 when there was no answer. */
  readonly statusCode: number;
  /** Why there was no answer (timeout, connection error, refused address); empty otherwise. */
  readonly error: string;
  /** Whether no answer came in time (`timeoutMs`). */
  readonly timedOut: boolean;
}

export interface PostRequest {
  readonly url: URL;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
  readonly timeoutMs: number;
  readonly signal?: AbortSignal;
}

export function postJson(agents: GuardedAgents, request: PostRequest): Promise<PostResult> {
  return new Promise((resolve) => {
    const { url } = request;
    const secure = url.protocol === 'https:';
    let settled = false;
    const done = (result: PostResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      request.signal?.removeEventListener('abort', onAbort);
      resolve(result);
    };
    let req: http.ClientRequest;
    try {
      req = (secure ? https : http).request(url, {
        method: 'POST',
        agent: secure ? agents.https : agents.http,
        headers: { ...request.headers, 'content-length': String(Buffer.byteLength(request.body)) },
      });
    } catch (error) {
      // Invalid header names or values from the caller's `headers`.
      resolve({ statusCode: 0, error: `the request could not be made: ${(error as Error).message}`, timedOut: false });
      return;
    }
    const timer = setTimeout(() => {
      req.destroy();
      done({ statusCode: 0, error: `no answer within ${request.timeoutMs} ms`, timedOut: true });
    }, request.timeoutMs);
    const onAbort = () => {
      req.destroy();
      done({ statusCode: 0, error: 'the delivery was stopped (the notifier is shutting down)', timedOut: false });
    };
    request.signal?.addEventListener('abort', onAbort, { once: true });
    if (request.signal?.aborted) onAbort();
    req.on('response', (res) => {
      res.on('data', () => undefined);
      res.on('end', () => done({ statusCode: res.statusCode ?? 0, error: '', timedOut: false }));
      res.on('error', () => done({ statusCode: res.statusCode ?? 0, error: '', timedOut: false }));
    });
    req.on('error', (error: NodeJS.ErrnoException) => {
      done({ statusCode: 0, error: `${error.code ?? 'error'}: ${error.message}`, timedOut: false });
    });
    req.end(request.body);
  });
}
