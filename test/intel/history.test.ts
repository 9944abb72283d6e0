/**
 * The pure parts of domain reports: which archive years are read and what loading one costs
 * (pipeline/intel/history.ts), what a page shows (pipeline/intel/signals.ts), and the lookup's
 * sections and their failures (pipeline/intel/sections.ts).
 */
import { describe, expect, it } from 'vitest';
import { ServiceError } from '../../pipeline/clients/service-http.js';
import { capturedAt, includedYears, planYears, SNAPSHOT_CHARGES, snapshotCharge } from '../../pipeline/intel/history.js';
import { reportEstimate, reportFigures } from '../../pipeline/intel/report.js';
import { daysUntil, dnsSection, mailSection, registrationSection, sectionError } from '../../pipeline/intel/sections.js';
import { identityChanged, pageIdentity, pageSignals, parkingNameservers, wordsOf } from '../../pipeline/intel/signals.js';
import { snapshotsEstimate } from '../../pipeline/intel/snapshots.js';

const years = (list: number[]) => list.map((year) => ({ year }));
const NOW = Date.parse('2031-03-01T00:00:00Z');
const DAY = 86_400_000;

describe('pipeline/intel/history', () => {
  it('plans every year when there are few, newest first', () => {
    expect(planYears(years([2019, 2020, 2021]), 6)).toEqual([2021, 2020, 2019]);
    expect(planYears([], 6)).toEqual([]);
    expect(planYears(years([2019]), 0)).toEqual([]);
  });

  it('spreads the years over the history, the oldest and the newest always among them', () => {
    const thirteen = years(Array.from({ length: 13 }, (_, i) => 2012 + i));
    expect(planYears(thirteen, 6)).toEqual([2024, 2022, 2019, 2017, 2014, 2012]);
    expect(planYears(thirteen, 7)).toEqual([2024, 2022, 2020, 2018, 2016, 2014, 2012]);
    expect(planYears(thirteen, 1)).toEqual([2024]);
    expect(planYears(thirteen, 2)).toEqual([2024, 2012]);
    // One capture a year, repeated years counted once.
    expect(planYears(years([2020, 2020, 2021]), 6)).toEqual([2021, 2020]);
  });

  it('includes the first years of the plan in the report\'s price', () => {
    expect(includedYears([2024, 2022, 2020], 6)).toEqual([2024, 2022, 2020]);
    expect(includedYears([2024, 2022, 2020, 2018], 2)).toEqual([2024, 2022]);
    expect(includedYears([2024], 0)).toEqual([]);
  });

  it('prices a year: stored free; in a report included free, else extra; later, included free for 7 days, else loaded', () => {
    const report = { createdAtMs: NOW };
    const included = [2024, 2022];
    expect(snapshotCharge(2024, { stored: true, included, report: null, nowMs: NOW })).toBe('stored');
    expect(snapshotCharge(2024, { stored: false, included, report: null, nowMs: NOW })).toBe('included');
    expect(snapshotCharge(2012, { stored: false, included, report: null, nowMs: NOW })).toBe('extra');
    expect(snapshotCharge(2022, { stored: false, included, report, nowMs: NOW + 7 * DAY })).toBe('included');
    expect(snapshotCharge(2022, { stored: false, included, report, nowMs: NOW + 7 * DAY + 1 })).toBe('loaded');
    expect(snapshotCharge(2012, { stored: false, included, report, nowMs: NOW + DAY })).toBe('loaded');
    expect(snapshotCharge(2012, { stored: true, included, report, nowMs: NOW + 30 * DAY })).toBe('stored');
    expect([SNAPSHOT_CHARGES.stored.credits, SNAPSHOT_CHARGES.included.credits, SNAPSHOT_CHARGES.extra.credits, SNAPSHOT_CHARGES.loaded.credits]).toEqual([0, 0, 1, 1]);
  });

  it('reserves a report\'s most: its depth\'s price and each snapshot beyond those included', () => {
    expect(reportFigures({ depth: 'buyer' })).toEqual({ snapshots: 6, verifyLinks: 20, included: 6 });
    expect(reportFigures({ depth: 'deep', snapshots: 3, verifyLinks: null })).toEqual({ snapshots: 3, verifyLinks: 50, included: 12 });
    expect(reportEstimate({})).toBe(25);
    expect(reportEstimate({ depth: 'quick' })).toBe(2);
    expect(reportEstimate({ depth: 'quick', snapshots: 3 })).toBe(5);
    expect(reportEstimate({ depth: 'buyer', snapshots: 24 })).toBe(25 + 18);
    expect(reportEstimate({ depth: 'deep', snapshots: 10 })).toBe(60);
    expect(snapshotsEstimate({})).toBe(6);
    expect(snapshotsEstimate({ years: [2012, 2012, 2013] })).toBe(2);
  });

  it('reads a capture time', () => {
    expect(capturedAt('20120615120000')).toBe('2012-06-15T12:00:00Z');
    expect(capturedAt('2012')).toBe('2012');
  });
});

describe('pipeline/intel/signals', () => {
  it('splits words linearly, even across a long run of hyphens', () => {
    expect(wordsOf('Hello, Wörld — e-mail --x-- 42')).toEqual(['hello', 'wörld', 'e-mail', 'x', '42']);
    // A million characters each: a split quadratic in the length (a backtracking pattern over
    // the run of hyphens) takes minutes, so the test's own timeout is the bound.
    expect(wordsOf(`${'-'.repeat(1_000_000)}a`)).toEqual(['a']);
    const words = wordsOf('a '.repeat(500_000));
    expect(words).toHaveLength(500_000);
    expect(words.every((w) => w === 'a')).toBe(true);
  });

  it('finds parked and for-sale phrases, and spam only with enough distinct terms', () => {
    expect(pageSignals({ title: 'example.com', markdown: 'This Domain Is For Sale. Buy this domain now!' }).forSale).toEqual(['domain is for sale', 'domain for sale', 'buy this domain'].filter((p) => 'this domain is for sale. buy this domain now!'.includes(p)));
    expect(pageSignals({ title: null, markdown: 'Related Searches\n\nSponsored Listings' }).parked).toEqual(['related searches', 'sponsored listings']);
    expect(pageSignals({ title: 'Casino night', markdown: 'Poker and raffles for charity.' }).spam).toEqual(['casino', 'poker']);
    expect(pageSignals({ title: 'Charity evening', markdown: 'Casino tables and poker for charity.' }).spam).toEqual([]);
    expect(pageSignals({ title: 'Pharmacy', markdown: 'viagra cialis tramadol' }).spam).toEqual(['cialis', 'tramadol', 'viagra']);
  });

  it('knows parking name servers by their suffix', () => {
    expect(parkingNameservers(['ns1.sedoparking.com', 'NS2.PARKINGCREW.NET.', 'ns1.example.com', 'notsedoparking.com'])).toEqual(['ns1.sedoparking.com', 'NS2.PARKINGCREW.NET.']);
  });

  it('tells different owners\' sites from the same site changing', () => {
    const bakery = pageIdentity({ title: 'Corner Bakery', markdown: 'Sourdough bread and pastries baked daily. Bread, cakes, pastries and coffee.' });
    const bakery2 = pageIdentity({ title: 'Corner Bakery - Summer', markdown: 'Sourdough bread and pastries baked daily. New summer cakes and iced coffee.' });
    const robots = pageIdentity({ title: 'Acme Robotics', markdown: 'Industrial robotics, automation arms and machine vision systems for factories.' });
    expect(identityChanged(bakery, bakery2)).toBe(false);
    expect(identityChanged(bakery, robots)).toBe(true);
    expect(identityChanged(bakery, pageIdentity({ title: null, markdown: '' }))).toBe(false);
  });
});

describe('pipeline/intel/sections', () => {
  it('counts whole days by the clock it is given', () => {
    expect(daysUntil('2031-03-11T00:00:00Z', NOW)).toBe(10);
    expect(daysUntil('2031-02-19T00:00:00Z', NOW)).toBe(-10);
    expect(daysUntil(null, NOW)).toBeNull();
    expect(daysUntil('not a date', NOW)).toBeNull();
  });

  it('builds the registration section of each registry answer', () => {
    const found = registrationSection(
      {
        outcome: 'found',
        registry: 'https://rdap.example/',
        domain: {
          ldhName: 'example.com', unicodeName: null, handle: 'H1', registered: '2021-03-01T00:00:00Z', expires: '2031-04-01T00:00:00Z', lastChanged: null, transferred: null,
          status: ['active'], nameservers: ['ns1.example.net'], registrar: { name: 'R', ianaId: '9', url: null }, secureDns: true, sources: ['https://rdap.example/domain/example.com'],
        },
      },
      NOW,
    );
    expect(found).toMatchObject({ found: true, ageDays: 3652, expiresInDays: 31, dnssec: true, registrar: { name: 'R' } });
    // A day and a half old is one whole day.
    const young = registrationSection(
      {
        outcome: 'found',
        registry: 'r',
        domain: { ldhName: 'x.com', unicodeName: null, handle: null, registered: new Date(NOW - 1.5 * 86_400_000).toISOString(), expires: null, lastChanged: null, transferred: null, status: [], nameservers: [], registrar: null, secureDns: null, sources: [] },
      },
      NOW,
    );
    expect(young).toMatchObject({ ageDays: 1, expiresInDays: null });
    expect(registrationSection({ outcome: 'not_found', registry: 'https://rdap.example/' }, NOW)).toMatchObject({ found: false, registry: 'https://rdap.example/', status: [] });
    expect(registrationSection({ outcome: 'no_registry', reason: 'unknown_tld' }, NOW)).toMatchObject({ section: 'registration', code: 'registry_unsupported' });
  });

  it('names each source\'s failure by the section, the source and the kind', () => {
    expect(sectionError('registration', new ServiceError('rdap', 'rate_limited', 'slow down', 2500, 429))).toEqual({ section: 'registration', code: 'registry_rate_limited', message: 'rdap: slow down', retryAfter: 3 });
    expect(sectionError('registration', new ServiceError('rdap', 'rejected', 'no', null, 403)).code).toBe('registry_refused');
    expect(sectionError('dns', new ServiceError('dns', 'timeout', 'late')).code).toBe('dns_timeout');
    expect(sectionError('history', new ServiceError('wayback', 'unavailable', 'down', null, 503)).code).toBe('archive_unavailable');
    expect(sectionError('backlinks', new Error('store down')).code).toBe('link_graph_unavailable');
    expect(sectionError('dns', new Error('odd'))).toEqual({ section: 'dns', code: 'internal_error', message: 'the dns section failed' });
  });

  it('reads mail records: MX, SPF among the TXT records, DMARC at _dmarc', () => {
    const dns = dnsSection({ outcome: 'found', records: { A: [], AAAA: [], MX: [{ exchange: 'mx.example.com', priority: 5 }], NS: [], TXT: ['google-site-verification=x', 'V=SPF1 include:_spf.example.net ~all'] } });
    expect(mailSection(dns, { outcome: 'found', records: { A: [], AAAA: [], MX: [], NS: [], TXT: ['v=DMARC1; p=none'] } })).toEqual({ mx: [{ exchange: 'mx.example.com', priority: 5 }], spf: 'V=SPF1 include:_spf.example.net ~all', dmarc: 'v=DMARC1; p=none' });
    expect(mailSection(dns, { outcome: 'nxdomain' }).dmarc).toBeNull();
    expect(dnsSection({ outcome: 'nxdomain' })).toEqual({ exists: false, A: [], AAAA: [], MX: [], NS: [], TXT: [] });
  });
});
