/**
 * Shared by the end-to-end page benchmarks (bench/scrape.ts, bench/extract.ts): corpus pages
 * served on 127.0.0.1 as the bytes on file, and one side's numbers from a drive.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { median } from '../lib.js';
import type { DriveResult } from './drive.js';

export interface SitePage {
  readonly body: Buffer;
  readonly contentType: string;
}

/** The corpus pages on 127.0.0.1: `/p/<n>` (any query string) is page n. */
export async function startSite(pages: readonly SitePage[]): Promise<{ origin: string; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    const n = /^\/p\/(\d+)(?:\?|$)/.exec(req.url ?? '')?.[1];
    const page = n === undefined ? undefined : pages[Number(n)];
    if (!page) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    res.writeHead(200, { 'content-type': page.contentType, 'content-length': page.body.length }).end(page.body);
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

export interface Side {
  pages_per_s: number;
  p50_ms: number;
  p99_ms: number;
  cpu_ms_per_page: number;
  errors: number;
  first_error?: string;
}

export const round1 = (n: number) => Math.round(n * 10) / 10;
export const round3 = (n: number) => Math.round(n * 1000) / 1000;

function percentile(sorted: readonly number[], p: number): number {
  if (!sorted.length) return 0;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] as number;
}

export function side(result: DriveResult, cpu: number): Side {
  const sorted = [...result.latenciesMs].sort((a, b) => a - b);
  const done = result.latenciesMs.length;
  if (!done) throw new Error(`every page failed: ${result.firstError}`);
  return {
    pages_per_s: round1(done / (result.elapsedMs / 1000)),
    p50_ms: round1(percentile(sorted, 50)),
    p99_ms: round1(percentile(sorted, 99)),
    cpu_ms_per_page: round3(cpu / done),
    errors: result.errors,
    ...(result.firstError ? { first_error: result.firstError } : {}),
  };
}

export function medianSide(rounds: readonly Side[]): Side {
  const pick = (k: 'pages_per_s' | 'p50_ms' | 'p99_ms' | 'cpu_ms_per_page') => median(rounds.map((r) => r[k]));
  const errors = rounds.reduce((n, r) => n + r.errors, 0);
  const firstError = rounds.find((r) => r.first_error)?.first_error;
  return {
    pages_per_s: pick('pages_per_s'),
    p50_ms: pick('p50_ms'),
    p99_ms: pick('p99_ms'),
    cpu_ms_per_page: pick('cpu_ms_per_page'),
    errors,
    ...(firstError ? { first_error: firstError } : {}),
  };
}


/** The site's page URLs for one pass: every page once (or the first `n`), each URL never asked before (no cache hits). */
export function passUrls(origin: string, count: number): (n?: number) => string[] {
  let pass = 0;
  return (n = count) => {
    pass += 1;
    return Array.from({ length: Math.min(n, count) }, (_, i) => `${origin}/p/${i}?pass=${pass}`);
  };
}
