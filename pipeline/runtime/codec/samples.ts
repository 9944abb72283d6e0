/**
 * One deterministic example value of every event type's current version, with every
 * nullable field set and bytes that are not UTF-8. The wire fixtures are written from these
 * (`npm run gen:events -- --fixtures`); tests and benchmarks use them as ready-made events.
 */
import type { EventName, EventValue } from '../../../schemas/events/index.js';

const AT_MS = 1_795_000_000_000; // 2026-11-18T11:06:40Z, fixed so the fixtures are reproducible
const OPTIONS = JSON.stringify({ formats: ['markdown'], onlyMainContent: true, timeout: 30000 });

export const SAMPLE_EVENTS: { readonly [N in EventName]: EventValue<N> } = {
  ScrapeRequested: {
    requestId: 'req_01JD8Y5T3Q2W',
    tenant: 'key_7f3a',
    jobId: 'job_crawl_42',
    url: 'https://example.com/docs/intro?lang=en',
    options: OPTIONS,
    replyTo: 'wds.replies',
    correlationId: '3b241101-e2bb-4255-8caf-4136c566a962',
    deadlineMs: AT_MS + 60_000,
    createdAtMs: AT_MS,
    escalated: false,
    browser: false,
    cacheKey: '13e6076e5b41ef4cc05533e5e6aad6a4',
  },
  PageFetched: {
    requestId: 'req_01JD8Y5T3Q2W',
    tenant: 'key_7f3a',
    jobId: 'job_crawl_42',
    url: 'https://example.com/docs/intro?lang=en',
    finalUrl: 'https://example.com/en/docs/intro',
    statusCode: 200,
    headers: { 'content-type': 'text/html; charset=utf-8', etag: '"abc123"', 'set-cookie': 'a=1, b=2' },
    contentType: 'text/html; charset=utf-8',
    body: Buffer.concat([Buffer.from('<!doctype html><title>Intro – Ünïcode</title><p>hi</p>', 'utf8'), Buffer.from([0x00, 0xff, 0xfe, 0x80])]),
    fetchedAtMs: AT_MS + 850,
    rendered: true,
    options: OPTIONS,
    replyTo: 'wds.replies',
    correlationId: '3b241101-e2bb-4255-8caf-4136c566a962',
    deadlineMs: AT_MS + 60_000,
    credits: 5,
    source: 'index',
    requestedAtMs: AT_MS - 1_000,
    cacheKey: '13e6076e5b41ef4cc05533e5e6aad6a4',
    bodySha256: '826d85e4b37217c1e742507edbe6bbae47816797de9a1f1a61c3ce74f7900a55',
    extras: JSON.stringify({ screenshot: 'data:image/png;base64,iVBORw0KGgo=', actions: { screenshots: [], scrapes: [{ url: 'https://example.com/en/docs/intro', html: '<p>hi</p>' }], javascriptReturns: [{ type: 'number', value: 42 }] } }),
  },
  Reply: {
    correlationId: '3b241101-e2bb-4255-8caf-4136c566a962',
    ok: false,
    data: JSON.stringify({ markdown: '# Intro' }),
    errorCode: 'upstream_timeout',
    errorMessage: 'no worker answered within 30000 ms',
    credits: 1,
    source: 'parser',
  },
  JobEvent: {
    tenant: 'key_7f3a',
    jobId: 'job_crawl_42',
    kind: 'crawl',
    type: 'page',
    atMs: AT_MS + 1_200,
    data: JSON.stringify({ url: 'https://example.com/en/docs/intro', completed: 3, total: 10 }),
  },
  FetchRequested: {
    requestId: 'req_01JD8Y6F7KQX',
    tenant: 'key_7f3a',
    url: 'https://example.com/files/logo.png?v=2',
    proxy: 'residential',
    country: 'DE',
    replyTo: 'wds.replies',
    correlationId: '9c5b2a4e-1f0d-4c7e-a3b8-6d2e1f4a9b70',
    deadlineMs: AT_MS + 105_000,
    createdAtMs: AT_MS,
  },
  ParseRequested: {
    requestId: 'req_01JD8Y6P2RZM',
    tenant: 'key_7f3a',
    filename: 'Quarterly report – Ünïcode.pdf',
    contentType: 'application/pdf',
    body: Buffer.concat([Buffer.from('%PDF-1.4\n', 'latin1'), Buffer.from([0xe2, 0xe3, 0xcf, 0xd3, 0x00, 0xff])]),
    options: JSON.stringify({ formats: ['markdown', 'links'], onlyMainContent: false }),
    replyTo: 'wds.replies',
    correlationId: '5e8f0c1d-7a2b-4d3e-9f6a-0b1c2d3e4f50',
    deadlineMs: AT_MS + 135_000,
    createdAtMs: AT_MS,
  },
  MapRequested: {
    requestId: 'req_01JD8Y7M4PSV',
    tenant: 'key_7f3a',
    url: 'https://example.com/docs/',
    options: JSON.stringify({ search: 'Ünïcode docs', limit: 5000, includeSubdomains: true, ignoreSitemap: false }),
    replyTo: 'wds.replies',
    correlationId: '7d1e4b2a-8c3f-4e5d-b6a7-9f0e1d2c3b4a',
    deadlineMs: AT_MS + 40_000,
    createdAtMs: AT_MS,
  },
  TestPing: {
    id: 'ping-1',
    seq: 2 ** 53 - 2, // the largest long avsc writes (its safe range is ±(2^53 − 2))
    payload: Buffer.from([0x00, 0x01, 0x7f, 0x80, 0xff]),
    sentAtMs: AT_MS,
  },
};
