/**
 * pipeline/intel/site/company.ts against local company sites (test/helpers/fake-sites/company.ts)
 * read over the runtime's HTTP stack: each site's truth found, noise left out, and the faults.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readCompany } from '../../pipeline/intel/site/company.js';
import { phoneKey } from '../../pipeline/intel/site/phones.js';
import { BLOG_NOW } from '../helpers/fake-sites/blogs.js';
import { companyFixtures, type CompanyFixture } from '../helpers/fake-sites/company.js';
import { localFetcher, readOver } from '../helpers/fake-sites/read.js';
import { startFakeSite, type FakeSite } from '../helpers/fake-sites/server.js';

const http = localFetcher();
const read = readOver(http);
const sites: { fixture: CompanyFixture; site: FakeSite }[] = [];

beforeAll(async () => {
  for (const fixture of companyFixtures()) sites.push({ fixture, site: await startFakeSite(fixture.routes) });
});
afterAll(async () => {
  await Promise.all(sites.map(({ site }) => site.close()));
  http.close();
});

describe('pipeline/intel/site readCompany on the fixture companies', () => {
  it.each(companyFixtures().map((f) => [f.label]))('%s: the truth, and nothing but', async (label) => {
    const { fixture, site } = sites.find((s) => s.fixture.label === label) as (typeof sites)[number];
    const answer = await readCompany(site.origin, { contacts: true, read, now: () => BLOG_NOW });
    const truth = fixture.truth;
    expect(answer.name).toBe(truth.name);
    expect(answer.contacts?.emails.map((e) => e.email).sort()).toEqual([...truth.emails].sort());
    expect(answer.contacts?.phones.map((p) => phoneKey(p.phone)).sort()).toEqual([...truth.phones].sort());
    expect(answer.contacts?.socialLinks.map((s) => s.url).sort()).toEqual([...truth.socials].sort());
    expect(answer.linkedin).toBe(truth.linkedin);
    expect(answer.foundingYear).toBe(truth.foundingYear);
    if (truth.address) expect(answer.address).toMatchObject(truth.address);
    else expect(answer.address).toBeNull();
    expect((answer.contacts?.contactForms.length ?? 0) > 0).toBe(truth.contactForm);
    // Every contact names a page that was read; robots.txt and the sitemap are read and charged too where the links named no page.
    for (const e of answer.contacts?.emails ?? []) expect(answer.pages.map((p) => p.url)).toContain(e.page);
    expect(answer.pagesRead).toBe(answer.pages.length + (label === 'us-sitemap' ? 2 : 0));
    expect(answer.warning).toBeNull();
  });
});
