/**
 * pipeline/intel/rules.ts: each concern rule raised when its evidence says so and not
 * otherwise, with its evidence; the findings and the seller's questions; every time
 * comparison against the clock it is given (a fixed instant here, never today's date).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { HistoryEvidence, LinksEvidence, ReportEvidence, WebsiteEvidence } from '../../pipeline/intel/evidence.js';
import type { ArchiveCapture, SnapshotEvidence } from '../../pipeline/intel/history.js';
import { CONCERN_RULES, EXPIRY_WARNING_DAYS, judgeReport, RECENT_TRANSFER_DAYS, reportConcerns, type ConcernRule } from '../../pipeline/intel/rules.js';
import type { DnsSection, RegistrationSection } from '../../pipeline/intel/sections.js';
import { pageIdentity, pageSignals } from '../../pipeline/intel/signals.js';
import { REPO_ROOT } from '../helpers/process.js';

const NOW = Date.parse('2030-06-15T12:00:00Z');
const DAY = 86_400_000;
const iso = (ms: number) => new Date(ms).toISOString();

function registration(over: Partial<RegistrationSection> = {}): RegistrationSection {
  return {
    found: true,
    registry: 'https://rdap.registry.example/',
    created: '2010-01-10T00:00:00Z',
    expires: iso(NOW + 400 * DAY),
    updated: '2029-01-01T00:00:00Z',
    transferred: null,
    ageDays: 7000,
    expiresInDays: 400,
    registrar: { name: 'Registrar One', ianaId: '1', url: null },
    status: ['client transfer prohibited'],
    nameservers: ['ns1.host.example'],
    dnssec: false,
    sources: ['https://rdap.registry.example/domain/example.com'],
    ...over,
  };
}

const dns = (over: Partial<DnsSection> = {}): DnsSection => ({ exists: true, A: ['192.0.2.1'], AAAA: [], MX: [{ exchange: 'mx.example.com', priority: 10 }], NS: ['ns1.host.example'], TXT: [], ...over });

function snapshot(year: number, title: string, text: string): SnapshotEvidence {
  const page = { title, markdown: text };
  return {
    year,
    timestamp: `${year}0601000000`,
    capturedAt: `${year}-06-01T00:00:00Z`,
    archiveUrl: `https://archive.example/web/${year}0601000000id_/http://example.com/`,
    original: 'http://example.com/',
    statusCode: 200,
    title,
    language: 'en',
    excerpt: text.slice(0, 50),
    signals: pageSignals(page),
    identity: pageIdentity(page),
  };
}

const capture = (year: number): ArchiveCapture => ({ year, timestamp: `${year}0601000000`, original: 'http://example.com/', archiveUrl: `https://archive.example/web/${year}0601000000id_/http://example.com/` });

const BAKERY = 'Fresh sourdough bread, croissants and pastries baked daily in our bakery. Order cakes, bread and pastries for pickup at the bakery counter.';
const CASINO = 'Online casino poker slots jackpot betting roulette bonus codes, play casino poker tonight.';
const ROBOTS = 'Industrial robotics automation arms, conveyor systems and machine vision for factories. Robotics integration services and automation consulting.';

function history(snapshots: SnapshotEvidence[], captures: ArchiveCapture[] = snapshots.map((s) => capture(s.year)).sort((a, b) => a.year - b.year)): HistoryEvidence {
  return { captures, snapshots, pending: [], failed: [] };
}

function website(over: Partial<WebsiteEvidence> = {}): WebsiteEvidence {
  return { url: 'https://example.com/', finalUrl: 'https://example.com/', statusCode: 200, title: 'Example', language: 'en', excerpt: '', signals: { parked: [], forSale: [], spam: [] }, redirectsTo: null, ...over };
}

function evidence(over: Partial<ReportEvidence> = {}): ReportEvidence {
  const d = dns();
  return { registration: registration(), dns: d, mail: { mx: d.MX, spf: 'v=spf1 -all', dmarc: 'v=DMARC1; p=reject' }, website: website(), history: null, backlinks: null, links: null, ...over };
}

const rulesOf = (e: ReportEvidence, now = NOW): ConcernRule[] => reportConcerns(e, now).map((c) => c.rule);

describe('pipeline/intel/rules', () => {
  it('raises nothing for a plain, healthy domain', () => {
    expect(rulesOf(evidence())).toEqual([]);
  });

  it('recent_transfer: a transfer within 90 days, by the clock it is given', () => {
    const transferred = iso(NOW - 30 * DAY);
    const concerns = reportConcerns(evidence({ registration: registration({ transferred }) }), NOW);
    expect(concerns).toEqual([expect.objectContaining({ rule: 'recent_transfer', severity: 'high', text: expect.stringContaining('30 days ago') })]);
    expect(concerns[0]?.evidence).toEqual([{ kind: 'registration', field: 'transferred', value: transferred, source: 'https://rdap.registry.example/domain/example.com' }]);
    expect(rulesOf(evidence({ registration: registration({ transferred: iso(NOW - (RECENT_TRANSFER_DAYS + 1) * DAY) }) }))).toEqual([]);
    // The same record judged a year later raises nothing: the rule reads the injected clock.
    expect(rulesOf(evidence({ registration: registration({ transferred }) }), NOW + 365 * DAY)).toEqual([]);
  });

  it('expiring_soon: within 60 days, or already expired', () => {
    expect(rulesOf(evidence({ registration: registration({ expiresInDays: EXPIRY_WARNING_DAYS }) }))).toEqual(['expiring_soon']);
    expect(rulesOf(evidence({ registration: registration({ expiresInDays: EXPIRY_WARNING_DAYS + 1 }) }))).toEqual([]);
    const expired = reportConcerns(evidence({ registration: registration({ expiresInDays: -3 }) }), NOW);
    expect(expired[0]?.text).toContain('expired 3 days ago');
  });

  it('pending_deletion and registry_hold: from the registry status words', () => {
    expect(rulesOf(evidence({ registration: registration({ status: ['redemption period'] }) }))).toEqual(['pending_deletion']);
    expect(rulesOf(evidence({ registration: registration({ status: ['pending delete'] }) }))).toEqual(['pending_deletion']);
    expect(rulesOf(evidence({ registration: registration({ status: ['client hold'] }) }))).toEqual(['registry_hold']);
    expect(rulesOf(evidence({ registration: registration({ status: ['server hold', 'server transfer prohibited'] }) }))).toEqual(['registry_hold']);
  });

  it('parked_or_for_sale: a for-sale or parked home page, or parking name servers', () => {
    const forSale = website({ signals: pageSignals({ title: 'example.com is for sale', markdown: 'This domain is for sale! Make an offer on this domain today.' }) });
    const concerns = reportConcerns(evidence({ website: forSale }), NOW);
    expect(concerns).toEqual([expect.objectContaining({ rule: 'parked_or_for_sale', severity: 'medium', evidence: [{ kind: 'website', url: 'https://example.com/', title: 'Example' }] })]);
    const parked = website({ signals: pageSignals({ title: 'example.com', markdown: 'Related searches: cheap flights, car insurance. Sponsored listings.' }) });
    expect(rulesOf(evidence({ website: parked }))).toEqual(['parked_or_for_sale']);
    const ns = reportConcerns(evidence({ registration: registration({ nameservers: ['ns1.sedoparking.com'] }) }), NOW);
    expect(ns[0]?.evidence).toEqual([{ kind: 'dns', record: 'NS', value: 'ns1.sedoparking.com' }]);
    // A site that merely mentions sales is not for sale.
    expect(rulesOf(evidence({ website: website({ signals: pageSignals({ title: 'Shop', markdown: 'Summer sale on all shoes.' }) }) }))).toEqual([]);
  });

  it('spam_history: snapshots with three or more spam terms, each as evidence', () => {
    const e = evidence({ history: history([snapshot(2024, 'Bakery', BAKERY), snapshot(2018, 'Casino bonus', CASINO), snapshot(2016, 'Bakery', BAKERY)]) });
    const spam = reportConcerns(e, NOW).find((c) => c.rule === 'spam_history');
    expect(spam?.evidence).toEqual([{ kind: 'snapshot', year: 2018, url: 'https://archive.example/web/20180601000000id_/http://example.com/', title: 'Casino bonus' }]);
    expect(spam?.text).toContain('2018');
    // One gambling word on an honest page is not spam.
    expect(rulesOf(evidence({ history: history([snapshot(2020, 'Card club', 'Our poker night is on Fridays at the community hall, bring snacks.')]) }))).toEqual([]);
  });

  it('owner_changed: consecutive snapshots that share neither content nor title words', () => {
    const e = evidence({ history: history([snapshot(2024, 'Acme Robotics', ROBOTS), snapshot(2019, 'Acme Robotics', ROBOTS), snapshot(2015, 'Corner Bakery', BAKERY), snapshot(2013, 'Corner Bakery', BAKERY)]) });
    const changed = reportConcerns(e, NOW).filter((c) => c.rule === 'owner_changed');
    expect(changed).toHaveLength(1);
    expect(changed[0]?.text).toContain('between 2015 and 2019');
    expect(changed[0]?.evidence.map((r) => (r.kind === 'snapshot' ? r.year : null))).toEqual([2015, 2019]);
    // The same site with a new headline keeps its words.
    const same = evidence({ history: history([snapshot(2020, 'Corner Bakery: summer menu', `${BAKERY} Summer menu.`), snapshot(2018, 'Corner Bakery', BAKERY)]) });
    expect(rulesOf(same)).toEqual([]);
  });

  it('registration_after_history: the registration began over a year after the first capture', () => {
    const captures = [capture(2008), capture(2020)];
    const e = evidence({ registration: registration({ created: '2019-05-01T00:00:00Z' }), history: history([snapshot(2020, 'Corner Bakery', BAKERY)], captures) });
    const concern = reportConcerns(e, NOW).find((c) => c.rule === 'registration_after_history');
    expect(concern?.evidence).toEqual([
      expect.objectContaining({ kind: 'registration', field: 'created', value: '2019-05-01T00:00:00Z' }),
      { kind: 'snapshot', year: 2008, url: captures[0]?.archiveUrl, title: null },
    ]);
    const continuous = evidence({ registration: registration({ created: '2007-05-01T00:00:00Z' }), history: history([snapshot(2020, 'Corner Bakery', BAKERY)], captures) });
    expect(rulesOf(continuous)).toEqual([]);
  });

  it('mail_records_missing: a domain in DNS without an MX record', () => {
    const concerns = reportConcerns(evidence({ dns: dns({ MX: [] }), mail: { mx: [], spf: null, dmarc: null } }), NOW);
    expect(concerns).toEqual([expect.objectContaining({ rule: 'mail_records_missing', evidence: [{ kind: 'dns', record: 'MX', value: null }] })]);
    // A domain not in DNS at all is a finding, not a mail concern.
    expect(rulesOf(evidence({ dns: dns({ exists: false, MX: [], A: [] }), mail: { mx: [], spf: null, dmarc: null } }))).toEqual([]);
    // Without DNS evidence (the lookup failed) nothing is said of mail.
    expect(rulesOf(evidence({ dns: null, mail: null }))).toEqual([]);
  });

  it('links_gone: over half of at least four linking pages no longer link', () => {
    const pages = (missing: number, checked: number): LinksEvidence => {
      const list = Array.from({ length: checked }, (_, i) => ({ sourceUrl: `https://blog${i}.example/post`, targetUrl: 'https://example.com/', lastSeen: '2030-01-01T00:00:00.000Z', status: i < missing ? ('missing' as const) : ('linking' as const) }));
      return { checked, linking: checked - missing, missing, unreachable: 0, pages: list };
    };
    const gone = reportConcerns(evidence({ links: pages(3, 4) }), NOW);
    expect(gone).toEqual([expect.objectContaining({ rule: 'links_gone', severity: 'low' })]);
    expect(gone[0]?.evidence).toHaveLength(3);
    expect(rulesOf(evidence({ links: pages(2, 4) }))).toEqual([]);
    expect(rulesOf(evidence({ links: pages(3, 3) }))).toEqual([]);
  });

  it('says nothing of a registration it could not read', () => {
    expect(rulesOf(evidence({ registration: null }))).toEqual([]);
    expect(rulesOf(evidence({ registration: registration({ found: false, transferred: null, expiresInDays: null, status: [] }) }))).toEqual([]);
  });

  it('asks the seller a question for each concern, and the standing ones, each with evidence', () => {
    const e = evidence({ registration: registration({ transferred: iso(NOW - 5 * DAY), expiresInDays: 10 }), mail: { mx: dns().MX, spf: null, dmarc: null } });
    const { concerns, questions, findings } = judgeReport(e, NOW);
    expect(concerns.map((c) => c.rule)).toEqual(['recent_transfer', 'expiring_soon']);
    expect(questions.filter((q) => q.concern !== null).map((q) => q.concern)).toEqual(['recent_transfer', 'expiring_soon']);
    expect(questions.filter((q) => q.concern === null).map((q) => q.text)).toEqual([
      expect.stringContaining('show control of the domain'),
      expect.stringContaining('UDRP'),
      expect.stringContaining('SPF or DMARC'),
    ]);
    for (const q of questions) expect(q.evidence.length).toBeGreaterThan(0);
    expect(findings.map((f) => f.topic)).toEqual(['registration', 'dns', 'mail', 'website']);
    expect(findings[0]?.text).toContain('Registrar One');
  });

  it('is documented: every rule has its row on the family\'s API page, with its severity', () => {
    const page = readFileSync(join(REPO_ROOT, 'docs/api/intelligence.md'), 'utf8');
    for (const [rule, { severity }] of Object.entries(CONCERN_RULES)) {
      const row = page.split('\n').find((line) => line.startsWith(`| \`${rule}\``));
      expect(row, rule).toBeDefined();
      expect(row, rule).toContain(severity);
    }
  });
});
