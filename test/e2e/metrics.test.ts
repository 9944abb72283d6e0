/**
 * The operators' metrics (docs/metrics.md) scraped from a running service: the embedded
 * service with METRICS_PORT=0 crawls a small local site whose pages answer after a delay,
 * and `/metrics` is read while the crawl runs and after it ended. The named series exist and
 * move: messages consumed and produced on the scrape topic, the handlers' histograms, the
 * store's insert batches, the gateway's answers by operation and status, consumer lag and
 * handlers in flight; the server is on loopback (METRICS_HOST unset) and answers 404 beside
 * /metrics.
 */
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmbedded, type Embedded } from '../helpers/embedded.js';
import { sample, scrapeMetrics, type Samples } from '../helpers/metrics.js';

const API_KEY = 'e2e-metrics-key-0123456789abcdef';
const PAGES = 24;
const PAGE_DELAY_MS = 40;

let site: http.Server;
let siteBase: string;
let service: Embedded;

beforeAll(async () => {
  site = http.createServer((request, response) => {
    const n = Number(/^\/p(\d+)$/.exec(request.url ?? '')?.[1] ?? 0);
    const links = Array.from({ length: PAGES }, (_, i) => `<a href="/p${i}">page ${i}</a>`).join(' ');
    setTimeout(() => {
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      response.end(`<html><head><title>Page ${n}</title></head><body><h1>Page ${n}</h1><p>${'Text of the page. '.repeat(20)}</p>${links}</body></html>`);
    }, PAGE_DELAY_MS);
  });
  site.listen(0, '127.0.0.1');
  await once(site, 'listening');
  siteBase = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
  service = await startEmbedded({ apiKey: API_KEY, env: { FETCH_ALLOW_PRIVATE: 'true', METRICS_PORT: '0' } });
});

afterAll(async () => {
  await service?.stop();
  site?.close();
});

async function call(method: string, path: string, body?: unknown): Promise<{ status: number; body: Record<string, any> }> {
  const res = await fetch(`${service.base}${path}`, {
    method,
    headers: { authorization: `Bearer ${API_KEY}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, any> };
}

function metricsUrl(): string {
  const address = service.service.metrics?.address;
  if (!address) throw new Error('the service serves no metrics');
  return `http://127.0.0.1:${address.port}`;
}

const consumedScrapes = (s: Samples) => sample(s, 'wds_events_consumed_total', { topic: 'wds.scrape.requested', group: 'fetcher' });

describe('metrics of a crawl', () => {
  it('binds to loopback when METRICS_HOST is unset', () => {
    expect(service.config.metricsHost).toBe('127.0.0.1');
    expect(service.service.metrics?.address.address).toBe('127.0.0.1');
  });

  it('serves the named series while a crawl runs, and they move', { timeout: 120_000 }, async () => {
    const started = await call('POST', '/v1/crawl', { url: `${siteBase}/`, limit: PAGES, maxConcurrency: 2 });
    expect(started.status, JSON.stringify(started.body)).toBe(200);
    const id = started.body.data.id as string;

    // While it runs: the scrape topic's consumed count seen at least twice, growing.
    const seen: number[] = [];
    let status = 'scraping';
    while (status === 'scraping') {
      const during = await scrapeMetrics(metricsUrl());
      seen.push(consumedScrapes(during) ?? 0);
      status = (await call('GET', `/v1/crawl/${id}`)).body.data.status as string;
    }
    expect(status).toBe('completed');
    const after = await scrapeMetrics(metricsUrl());
    seen.push(consumedScrapes(after) ?? 0);
    expect(seen.length).toBeGreaterThanOrEqual(2);
    expect(seen.at(-1)).toBeGreaterThanOrEqual(PAGES);
    expect(new Set(seen).size, `consumed counts seen: ${seen.join(', ')}`).toBeGreaterThan(1);

    expect(sample(after, 'wds_events_produced_total', { topic: 'wds.scrape.requested' })).toBeGreaterThanOrEqual(PAGES);
    expect(sample(after, 'wds_events_consumed_total', { topic: 'wds.page.fetched', group: 'parser' })).toBeGreaterThanOrEqual(PAGES);
    // The fetcher's handler histogram: every page in the +Inf bucket, and bucket counts that never fall.
    const buckets = after.filter((s) => s.name === 'wds_handler_duration_seconds_bucket' && s.labels.actor === 'fetcher' && s.labels.event === 'ScrapeRequested');
    expect(buckets.length).toBeGreaterThan(5);
    expect(buckets.find((b) => b.labels.le === '+Inf')?.value).toBeGreaterThanOrEqual(PAGES);
    const counts = buckets.map((b) => b.value);
    expect(counts).toEqual([...counts].sort((a, b) => a - b));
    expect(sample(after, 'wds_handler_duration_seconds_count', { actor: 'parser', event: 'PageFetched' })).toBeGreaterThanOrEqual(PAGES);
    // The store: job pages written in batches, each timed.
    expect(sample(after, 'wds_store_insert_batches_total', { table: 'job_pages', result: 'ok' })).toBeGreaterThan(0);
    expect(sample(after, 'wds_store_insert_rows_total', { table: 'job_pages' })).toBeGreaterThanOrEqual(PAGES);
    expect(sample(after, 'wds_store_insert_duration_seconds_count', { table: 'job_pages' })).toBeGreaterThan(0);
    // The gateway: answers by operation id and status.
    expect(sample(after, 'wds_http_requests_total', { operation: 'crawlStart', status: '200' })).toBe(1);
    expect(sample(after, 'wds_http_requests_total', { operation: 'crawlStatus', status: '200' })).toBeGreaterThanOrEqual(seen.length - 1);
    expect(sample(after, 'wds_http_request_duration_seconds_count', { operation: 'crawlStart' })).toBe(1);
    // State values: every pool's in-flight count, and the memory bus's backlog per group and partition (drained now).
    expect(sample(after, 'wds_handlers_in_flight', { actor: 'fetcher' })).toBe(0);
    const lag = after.filter((s) => s.name === 'wds_consumer_lag' && s.labels.group === 'fetcher' && s.labels.topic === 'wds.scrape.requested');
    expect(lag.length).toBeGreaterThan(0);
    expect(lag.every((s) => s.value === 0)).toBe(true);
    // The process's own figures.
    expect(sample(after, 'wds_process_cpu_seconds_total', {})).toBeGreaterThan(0);
  });

  it('counts a refused request under its operation and status, and an unknown path as unmatched', async () => {
    const refused = await call('POST', '/v1/crawl', { url: 42 });
    expect(refused.status).toBe(422);
    const missing = await call('GET', '/v1/nothing-here');
    expect(missing.status).toBe(404);
    const after = await scrapeMetrics(metricsUrl());
    expect(sample(after, 'wds_http_requests_total', { operation: 'crawlStart', status: '422' })).toBe(1);
    expect(sample(after, 'wds_http_requests_total', { operation: 'unmatched', status: '404' })).toBe(1);
  });

  it('answers 404 beside GET /metrics', async () => {
    const res = await fetch(`${metricsUrl()}/other`);
    expect(res.status).toBe(404);
    await res.text();
  });
});
