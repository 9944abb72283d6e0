/**
 * pipeline/clients/wayback.ts against a local Wayback Machine (test/helpers/fake-wayback.ts) on
 * 127.0.0.1 through the real HTTP stack: the CDX query it sends, one HTML 200 capture a year
 * oldest first, the year range, an empty archive, malformed rows skipped, columns read by the
 * header's names, snapshot URLs that serve the archived page, and failures as ServiceErrors.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { serviceFetcher } from '../../pipeline/clients/service-http.js';
import { MAX_CAPTURES, WaybackClient } from '../../pipeline/clients/wayback.js';
import { startFakeWayback, type FakeWayback } from '../helpers/fake-wayback.js';
import { serviceFailure } from '../helpers/service-error.js';

const CTX = { timeoutMs: 5_000 };

const page = (year: number, note: string) => `<!doctype html><html><head><title>Example ${year}</title></head><body><p>${note}</p></body></html>`;

let fake: FakeWayback;

beforeAll(async () => {
  fake = await startFakeWayback({
    captures: {
      'example.com': [
        { timestamp: '20190315120000', html: page(2019, 'first of 2019') },
        { timestamp: '20190920080000', html: page(2019, 'second of 2019') },
        { timestamp: '20180101000000', html: page(2018, 'a redirect'), statusCode: 301 },
        { timestamp: '20180202000000', html: '%PDF-1.4', mimeType: 'application/pdf' },
        { timestamp: '20180707070707', html: page(2018, 'only html 200 of 2018') },
        { timestamp: '20211111111111', html: page(2021, 'after a gap') },
        { timestamp: '20240229235959', html: page(2024, 'leap day') },
      ],
    },
  });
});

afterAll(async () => {
  await fake.close();
});

beforeEach(() => {
  fake.setMode('ok');
  fake.requests.length = 0;
});

describe('pipeline/clients/wayback', () => {
  it('asks the CDX API for one HTML 200 capture a year and reads them oldest first', async () => {
    const client = new WaybackClient({ baseUrl: fake.url });
    const captures = await client.yearly('example.com', CTX);
    expect(captures.map((c) => [c.year, c.timestamp])).toEqual([
      [2018, '20180707070707'],
      [2019, '20190315120000'],
      [2021, '20211111111111'],
      [2024, '20240229235959'],
    ]);
    expect(captures[0]).toEqual({
      timestamp: '20180707070707',
      year: 2018,
      original: 'http://example.com/',
      statusCode: 200,
      mimeType: 'text/html',
      digest: expect.stringMatching(/^[A-Z2-7]{32}$/),
      length: Buffer.byteLength(page(2018, 'only html 200 of 2018')),
    });
    const query = fake.requests[0]?.query;
    expect(fake.requests[0]?.path).toBe('/cdx/search/cdx');
    expect(Object.fromEntries(query ?? [])).toMatchObject({ url: 'example.com', output: 'json', fl: 'timestamp,original,statuscode,mimetype,digest,length', collapse: 'timestamp:4', limit: String(MAX_CAPTURES) });
    expect(query?.getAll('filter')).toEqual(['statuscode:200', 'mimetype:text/html']);
  });

  it('limits the years with from and to', async () => {
    const client = new WaybackClient({ baseUrl: fake.url });
    const captures = await client.yearly('example.com', { ...CTX, from: 2019, to: 2021 });
    expect(captures.map((c) => c.year)).toEqual([2019, 2021]);
    expect(fake.requests[0]?.query.get('from')).toBe('2019');
    expect(fake.requests[0]?.query.get('to')).toBe('2021');
    for (const from of [19, 2019.5, Number.NaN]) await expect(client.yearly('example.com', { ...CTX, from }), String(from)).rejects.toMatchObject({ code: 'bad_request' });
    expect(fake.requests).toHaveLength(1);
  });

  it('gives [] for a domain the archive never captured', async () => {
    const client = new WaybackClient({ baseUrl: fake.url });
    expect(await client.yearly('never-archived.org', CTX)).toEqual([]);
  });

  it('builds snapshot URLs that serve the archived bytes, below a path prefix too', async () => {
    const client = new WaybackClient({ baseUrl: fake.url });
    const [first] = await client.yearly('example.com', CTX);
    if (!first) throw new Error('no capture');
    const url = client.snapshotUrl(first);
    expect(url).toBe(`${fake.url}/web/20180707070707id_/http://example.com/`);
    const archived = await serviceFetcher().fetch({ url, timeoutMs: 5_000, proxy: 'none', content: null });
    expect(archived.text().text).toBe(page(2018, 'only html 200 of 2018'));
    const prefixed = new WaybackClient({ baseUrl: `${fake.url}/archive/` });
    expect(prefixed.snapshotUrl(first)).toBe(`${fake.url}/archive/web/20180707070707id_/http://example.com/`);
  });

  it('skips malformed rows and reads columns by the header, whatever their order', async () => {
    const client = new WaybackClient({ baseUrl: fake.url });
    const rows = [
      ['original', 'timestamp', 'statuscode', 'mimetype', 'digest', 'length'],
      ['http://example.com/', '20150101000000', '200', 'text/html', 'ABC', '1234'],
      ['http://example.com/', '2016', '200', 'text/html', 'ABC', '1'],
      ['javascript:alert(1)', '20170101000000', '200', 'text/html', 'ABC', '1'],
      'not a row',
      ['http://example.com/', ['nested'], '200'],
      null,
      ['http://example.com/', '20180101000000', '-', '-', '-', '-'],
      ['http://example.com/'],
      ['https://example.com/', '20120101000000', 'x', 'text/html', 'D', '99999999999999999999'],
    ];
    fake.setMode({ status: 200, body: JSON.stringify(rows), headers: { 'content-type': 'application/json' } });
    expect(await client.yearly('example.com', CTX)).toEqual([
      { timestamp: '20120101000000', year: 2012, original: 'https://example.com/', statusCode: null, mimeType: 'text/html', digest: 'D', length: null },
      { timestamp: '20150101000000', year: 2015, original: 'http://example.com/', statusCode: 200, mimeType: 'text/html', digest: 'ABC', length: 1234 },
      { timestamp: '20180101000000', year: 2018, original: 'http://example.com/', statusCode: null, mimeType: null, digest: null, length: null },
    ]);
    fake.setMode({ status: 200, body: JSON.stringify([['urlkey', 'statuscode'], ['com,example)/', '200']]), headers: { 'content-type': 'application/json' } });
    expect(await client.yearly('example.com', CTX)).toEqual([]);
  });

  it('reports failures as ServiceErrors: 429 with its wait, 503, no answer, not JSON, not a list', async () => {
    const client = new WaybackClient({ baseUrl: fake.url });
    fake.setMode('rate_limited');
    expect(await serviceFailure(client.yearly('example.com', CTX))).toMatchObject({ service: 'wayback', kind: 'rate_limited', retryAfterMs: 5000 });
    fake.setMode('error');
    expect(await serviceFailure(client.yearly('example.com', CTX))).toMatchObject({ kind: 'unavailable', status: 503 });
    fake.setMode('hang');
    expect(await serviceFailure(client.yearly('example.com', { timeoutMs: 300 }))).toMatchObject({ kind: 'timeout' });
    fake.setMode({ status: 200, body: 'com,example)/ 20180707070707 http://example.com/ text/html 200 X 1\n', headers: { 'content-type': 'text/plain' } });
    expect(await serviceFailure(client.yearly('example.com', CTX))).toMatchObject({ kind: 'unreadable' });
    fake.setMode({ status: 200, body: '{"rows": []}', headers: { 'content-type': 'application/json' } });
    expect(await serviceFailure(client.yearly('example.com', CTX))).toMatchObject({ kind: 'unreadable' });
  });

  it('refuses an answer larger than its cap', async () => {
    const client = new WaybackClient({ baseUrl: fake.url });
    const row = ['http://example.com/', '20150101000000', '200', 'text/html', 'A'.repeat(1000), '1'];
    const body = JSON.stringify([['original', 'timestamp', 'statuscode', 'mimetype', 'digest', 'length'], ...Array.from({ length: 3000 }, () => row)]);
    fake.setMode({ status: 200, body, headers: { 'content-type': 'application/json' } });
    expect(await serviceFailure(client.yearly('example.com', CTX))).toMatchObject({ kind: 'unavailable' });
  });
});
