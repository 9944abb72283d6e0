/**
 * The site readers behind the SSRF guard (issue 30), embedded mode with FETCH_ALLOW_PRIVATE
 * off, as a production instance runs: a site on a loopback or private address is refused by
 * the fetcher's guard, and the call answers 403 `url_blocked` (not `site_unreachable`), with
 * nothing fetched (a failed call is not charged: test/e2e/sites.test.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { embeddedWithSecondKey, type Embedded } from '../helpers/embedded.js';
import { postJson } from '../helpers/api.js';
import { germanImprint } from '../helpers/fake-sites/company.js';
import { startFakeSite, type FakeSite } from '../helpers/fake-sites/server.js';

const API_KEY = 'e2e-sites-guard-key-0123456789';
let svc: Embedded;
let otherKey = '';
let site: FakeSite;

beforeAll(async () => {
  site = await startFakeSite(germanImprint().routes);
  ({ svc, otherKey } = await embeddedWithSecondKey(API_KEY, { SITE_PAGE_TIMEOUT_MS: '5000' }));
}, 120_000);

afterAll(async () => {
  await svc?.stop();
  await site?.close();
});

describe('e2e/sites behind the SSRF guard', () => {
  it.each([
    ['/v1/company', (url: string) => ({ url })],
    ['/v1/products', (url: string) => ({ url, limit: 10 })],
    ['/v1/posts', (url: string) => ({ url, limit: 10 })],
  ])('%s of a site on 127.0.0.1 is url_blocked, nothing fetched', async (path, body) => {
    const { status, body: answer } = await postJson(svc.base, otherKey, path, body(site.origin));
    expect(status, JSON.stringify(answer)).toBe(403);
    expect(answer.error.code).toBe('url_blocked');
    expect(site.requests).toEqual([]);
  });

  it('`localhost` names a site too, and the guard refuses it the same way', async () => {
    const { status, body } = await postJson(svc.base, API_KEY, '/v1/company', { url: 'localhost' });
    expect(status).toBe(403);
    expect(body.error.code).toBe('url_blocked');
  });
});
