/**
 * A caller of the service's JSON API for end-to-end tests: `call(method, path, body?, key?)`
 * sends the body as JSON with the key as a bearer token and answers the status and the decoded
 * envelope. The base URL is read at each call (a test's service may restart on another port).
 */
export type Body = Record<string, any>;

export interface ApiAnswer {
  readonly status: number;
  readonly headers: Headers;
  readonly body: Body;
}

export type ApiCall = (method: string, path: string, body?: unknown, key?: string) => Promise<ApiAnswer>;

export function apiCaller(base: () => string, defaultKey: string, timeoutMs?: number): ApiCall {
  return async (method, path, body, key = defaultKey) => {
    const res = await fetch(`${base()}${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      ...(timeoutMs === undefined ? {} : { signal: AbortSignal.timeout(timeoutMs) }),
    });
    return { status: res.status, headers: res.headers, body: (await res.json()) as Body };
  };
}

/** One POST of `body` as JSON to `base` + `path` with `key` (60 s at most). */
export function postJson(base: string, key: string, path: string, body: unknown): Promise<ApiAnswer> {
  return apiCaller(() => base, key, 60_000)('POST', path, body);
}
