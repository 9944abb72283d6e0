/**
 * The `network` format: every request the page made, in the order they started, each with
 * its URL, method, resource type, status (null when it got no response), size (response
 * body bytes as received, and headers), timing (start relative to the first request, and
 * duration, in ms), and — when it failed or was aborted by the policy — the error text.
 */
import type { Page, Request } from 'playwright-core';

export interface NetworkEntry {
  readonly url: string;
  readonly method: string;
  readonly resourceType: string;
  readonly status: number | null;
  readonly size: { readonly body: number; readonly headers: number } | null;
  readonly timing: { readonly startMs: number; readonly durationMs: number | null };
  readonly error?: string;
}

export interface NetworkLog {
  /** Waits for the sizes of finished requests and returns the entries. */
  entries(): Promise<NetworkEntry[]>;
}

export function recordNetwork(page: Page, now: () => number = Date.now): NetworkLog {
  const started = new Map<Request, number>();
  const done: Promise<NetworkEntry>[] = [];
  let origin: number | null = null;
  const startOf = (request: Request) => {
    const at = started.get(request) ?? now();
    origin ??= at;
    return at - origin;
  };
  page.on('request', (request) => {
    const at = now();
    origin ??= at;
    started.set(request, at);
  });
  const base = (request: Request) => ({ url: request.url(), method: request.method(), resourceType: request.resourceType() });
  page.on('requestfinished', (request) => {
    const startMs = startOf(request);
    const end = now();
    done.push(
      (async (): Promise<NetworkEntry> => {
        const response = await request.response().catch(() => null);
        const sizes = await request.sizes().catch(() => null);
        return {
          ...base(request),
          status: response?.status() ?? null,
          size: sizes ? { body: sizes.responseBodySize, headers: sizes.responseHeadersSize } : null,
          timing: { startMs, durationMs: end - (started.get(request) ?? end) },
        };
      })(),
    );
  });
  page.on('requestfailed', (request) => {
    const startMs = startOf(request);
    const end = now();
    done.push(
      Promise.resolve({
        ...base(request),
        status: null,
        size: null,
        timing: { startMs, durationMs: end - (started.get(request) ?? end) },
        error: request.failure()?.errorText ?? 'failed',
      }),
    );
  });
  return {
    async entries() {
      const all = await Promise.all(done);
      return all.sort((a, b) => a.timing.startMs - b.timing.startMs);
    },
  };
}
