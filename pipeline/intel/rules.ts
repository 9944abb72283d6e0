/**
 * The rules of a domain report: from its evidence (pipeline/intel/evidence.ts), the concerns a
 * buyer should weigh, the findings it rests on and the questions to put to the seller, each
 * pointing at its evidence. Pure: every time comparison is against the `nowMs` it is given
 * (the service's injected clock). The rules, their thresholds and severities are documented
 * in docs/api/intelligence.md (CONCERN_RULES below is that list; a test holds the two together).
 */
import { capturedAt } from './history.js';
import { registrationRef, snapshotRef, websiteRef, type EvidenceRef, type ReportEvidence } from './evidence.js';
import { daysUntil } from './sections.js';
import { identityChanged, parkingNameservers } from './signals.js';

export type Severity = 'high' | 'medium' | 'low';

/** Every concern a report can raise, with its severity and when it is raised. */
export const CONCERN_RULES = {
  recent_transfer: { severity: 'high', when: 'the registry records a transfer within the last RECENT_TRANSFER_DAYS (90) days' },
  expiring_soon: { severity: 'high', when: 'the registration expires within EXPIRY_WARNING_DAYS (60) days, or has expired' },
  pending_deletion: { severity: 'high', when: 'the registry status holds `redemption period` or `pending delete`' },
  registry_hold: { severity: 'high', when: 'the registry status holds `server hold` or `client hold` (the domain is kept out of DNS)' },
  parked_or_for_sale: { severity: 'medium', when: "today's home page reads as parked or offers the domain for sale, or its name servers are a parking service's" },
  spam_history: { severity: 'high', when: 'an archived snapshot shows spam (three or more distinct gambling, pharmacy, adult or counterfeit terms)' },
  mail_records_missing: { severity: 'medium', when: 'the domain exists in DNS but has no MX record' },
  owner_changed: { severity: 'medium', when: 'two consecutive archived snapshots look like different sites (under 10 % of their frequent words shared and no title word in common)' },
  registration_after_history: { severity: 'high', when: 'the current registration began more than a year after the archive first captured the site (it lapsed and was registered again)' },
  links_gone: { severity: 'low', when: 'of at least 4 linking pages checked, more than half no longer link to the domain' },
} as const satisfies Record<string, { readonly severity: Severity; readonly when: string }>;

export type ConcernRule = keyof typeof CONCERN_RULES;

export const RECENT_TRANSFER_DAYS = 90;
export const EXPIRY_WARNING_DAYS = 60;
/** How much later than the first capture a registration must begin to count as a re-registration. */
export const REREGISTRATION_GAP_DAYS = 365;
/** Linking pages checked before `links_gone` is judged. */
export const LINKS_GONE_MIN_CHECKED = 4;

export interface Concern {
  readonly rule: ConcernRule;
  readonly severity: Severity;
  readonly text: string;
  readonly evidence: readonly EvidenceRef[];
}

export interface Finding {
  readonly topic: 'registration' | 'dns' | 'mail' | 'website' | 'history' | 'backlinks' | 'links';
  readonly text: string;
  readonly evidence: readonly EvidenceRef[];
}

export interface Question {
  readonly text: string;
  /** The concern it follows from, if any. */
  readonly concern: ConcernRule | null;
  readonly evidence: readonly EvidenceRef[];
}

export interface ReportJudgement {
  readonly findings: readonly Finding[];
  readonly concerns: readonly Concern[];
  readonly questions: readonly Question[];
}

const concern = (rule: ConcernRule, text: string, evidence: readonly EvidenceRef[]): Concern => ({ rule, severity: CONCERN_RULES[rule].severity, text, evidence });
const day = (iso: string | null): string => (iso ?? '').slice(0, 10);
const DAY_MS = 86_400_000;

function registrationConcerns(e: ReportEvidence, nowMs: number): Concern[] {
  const r = e.registration;
  if (!r?.found) return [];
  const out: Concern[] = [];
  const sinceTransfer = daysUntil(r.transferred, nowMs);
  if (sinceTransfer !== null && sinceTransfer <= 0 && -sinceTransfer <= RECENT_TRANSFER_DAYS) {
    out.push(concern('recent_transfer', `The domain was transferred ${-sinceTransfer} days ago (${day(r.transferred)}).`, [registrationRef(r, 'transferred', r.transferred)]));
  }
  if (r.expiresInDays !== null && r.expiresInDays <= EXPIRY_WARNING_DAYS) {
    const text = r.expiresInDays < 0 ? `The registration expired ${-r.expiresInDays} days ago (${day(r.expires)}).` : `The registration expires in ${r.expiresInDays} days (${day(r.expires)}).`;
    out.push(concern('expiring_soon', text, [registrationRef(r, 'expires', r.expires)]));
  }
  const status = r.status.map((s) => s.toLowerCase());
  const deleting = status.filter((s) => s.includes('redemption period') || s.includes('pending delete'));
  if (deleting.length) out.push(concern('pending_deletion', `The registry lists the domain as ${deleting.join(', ')}.`, [registrationRef(r, 'status', deleting.join(', '))]));
  const held = status.filter((s) => s.includes('server hold') || s.includes('client hold'));
  if (held.length) out.push(concern('registry_hold', `The registry lists the domain on hold (${held.join(', ')}): it is kept out of DNS.`, [registrationRef(r, 'status', held.join(', '))]));
  return out;
}

function parkedConcern(e: ReportEvidence): Concern[] {
  const evidence: EvidenceRef[] = [];
  const said: string[] = [];
  const w = e.website;
  if (w && (w.signals.parked.length || w.signals.forSale.length)) {
    evidence.push(websiteRef(w));
    if (w.signals.forSale.length) said.push(`today's home page offers the domain for sale ("${w.signals.forSale[0]}")`);
    if (w.signals.parked.length) said.push(`today's home page reads as parked ("${w.signals.parked[0]}")`);
  }
  const nameservers = [...(e.registration?.nameservers ?? []), ...(e.dns?.NS ?? [])];
  const parking = [...new Set(parkingNameservers(nameservers))];
  if (parking.length) {
    said.push(`its name servers belong to a parking service (${parking.join(', ')})`);
    for (const ns of parking) evidence.push({ kind: 'dns', record: 'NS', value: ns });
  }
  return said.length ? [concern('parked_or_for_sale', `${capitalised(said.join('; '))}.`, evidence)] : [];
}

function historyConcerns(e: ReportEvidence): Concern[] {
  const h = e.history;
  if (!h) return [];
  const out: Concern[] = [];
  const spam = h.snapshots.filter((s) => s.signals.spam.length > 0);
  if (spam.length) {
    const years = spam.map((s) => s.year).sort((a, b) => a - b);
    const terms = [...new Set(spam.flatMap((s) => s.signals.spam))].slice(0, 6);
    out.push(concern('spam_history', `The archive shows spam on the home page in ${years.join(', ')} (${terms.join(', ')}).`, spam.map(snapshotRef)));
  }
  const ordered = [...h.snapshots].sort((a, b) => a.year - b.year);
  for (let i = 1; i < ordered.length; i++) {
    const before = ordered[i - 1] as (typeof ordered)[number];
    const after = ordered[i] as (typeof ordered)[number];
    if (identityChanged(before.identity, after.identity)) {
      const titles = `${before.title ? `"${before.title}"` : 'an untitled page'} to ${after.title ? `"${after.title}"` : 'an untitled page'}`;
      out.push(concern('owner_changed', `The site changed between ${before.year} and ${after.year}, from ${titles}.`, [snapshotRef(before), snapshotRef(after)]));
    }
  }
  return out;
}

function reregistration(e: ReportEvidence): Concern[] {
  const r = e.registration;
  const first = e.history?.captures[0];
  if (!r?.found || !r.created || !first) return [];
  const created = Date.parse(r.created);
  const captured = Date.parse(capturedAt(first.timestamp));
  if (!Number.isFinite(created) || !Number.isFinite(captured) || created - captured <= REREGISTRATION_GAP_DAYS * DAY_MS) return [];
  const loaded = e.history?.snapshots.find((s) => s.year === first.year);
  return [
    concern(
      'registration_after_history',
      `The current registration began on ${day(r.created)}, but the archive holds the site from ${first.year}: the domain lapsed and was registered again.`,
      [registrationRef(r, 'created', r.created), { kind: 'snapshot', year: first.year, url: first.archiveUrl, title: loaded?.title ?? null }],
    ),
  ];
}

function mailConcern(e: ReportEvidence): Concern[] {
  if (!e.dns?.exists || !e.mail || e.mail.mx.length > 0) return [];
  return [concern('mail_records_missing', 'The domain has no MX record: no mail server receives its mail.', [{ kind: 'dns', record: 'MX', value: null }])];
}

function linksConcern(e: ReportEvidence): Concern[] {
  const l = e.links;
  if (!l || l.checked < LINKS_GONE_MIN_CHECKED || l.missing * 2 <= l.checked) return [];
  const gone = l.pages.filter((p) => p.status === 'missing');
  return [concern('links_gone', `${l.missing} of ${l.checked} linking pages checked no longer link to the domain.`, gone.map((p) => ({ kind: 'page', url: p.sourceUrl, status: p.status }) as EvidenceRef))];
}

export function reportConcerns(e: ReportEvidence, nowMs: number): Concern[] {
  return [...registrationConcerns(e, nowMs), ...parkedConcern(e), ...historyConcerns(e), ...reregistration(e), ...mailConcern(e), ...linksConcern(e)];
}

function capitalised(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function years(n: number): string {
  return n === 1 ? '1 year' : `${n} years`;
}

export function reportFindings(e: ReportEvidence): Finding[] {
  const out: Finding[] = [];
  const r = e.registration;
  if (r?.found) {
    const age = r.ageDays !== null ? ` (${years(Math.floor(r.ageDays / 365))} ago)` : '';
    const registrar = r.registrar?.name ? ` with ${r.registrar.name}` : '';
    const expiry = r.expires ? `; it expires on ${day(r.expires)}` : '';
    out.push({ topic: 'registration', text: `Registered on ${day(r.created) || 'an unknown date'}${age}${registrar}${expiry}.`, evidence: [registrationRef(r, 'created', r.created)] });
  } else if (r) {
    out.push({ topic: 'registration', text: 'The registry holds no record of the domain: it may be registered directly rather than bought.', evidence: [registrationRef(r, 'found', null)] });
  }
  if (e.dns) {
    const text = e.dns.exists
      ? `DNS answers for the domain: ${e.dns.A.length + e.dns.AAAA.length} addresses, name servers ${e.dns.NS.join(', ') || 'none listed'}.`
      : 'The domain does not exist in DNS (NXDOMAIN).';
    out.push({ topic: 'dns', text, evidence: [{ kind: 'dns', record: 'NS', value: e.dns.NS[0] ?? null }] });
  }
  if (e.mail && e.dns?.exists) {
    const mx = e.mail.mx.map((m) => m.exchange).join(', ');
    const text = `${mx ? `Mail is handled by ${mx}` : 'No mail server is set up'}; SPF ${e.mail.spf ? 'is published' : 'is missing'}, DMARC ${e.mail.dmarc ? 'is published' : 'is missing'}.`;
    out.push({ topic: 'mail', text, evidence: [{ kind: 'dns', record: 'MX', value: e.mail.mx[0]?.exchange ?? null }, { kind: 'dns', record: 'TXT', value: e.mail.spf }, { kind: 'dns', record: 'DMARC', value: e.mail.dmarc }] });
  }
  const w = e.website;
  if (w) {
    const redirect = w.redirectsTo ? `; it redirects to ${w.redirectsTo}` : '';
    out.push({ topic: 'website', text: `Today the home page answers ${w.statusCode}${w.title ? ` titled "${w.title}"` : ' without a title'}${redirect}.`, evidence: [websiteRef(w)] });
  }
  const h = e.history;
  if (h) {
    const first = h.captures[0];
    const last = h.captures[h.captures.length - 1];
    const span = first && last ? `in ${h.captures.length} years between ${first.year} and ${last.year}` : 'never';
    const pending = h.pending.length ? `; ${h.pending.length} more pending (${h.pending.join(', ')})` : '';
    out.push({ topic: 'history', text: `The archive captured the home page ${span}; ${h.snapshots.length} snapshots read${pending}.`, evidence: h.snapshots.map(snapshotRef) });
  }
  if (e.backlinks) {
    const b = e.backlinks;
    const top = b.referringDomains.slice(0, 3).map((d) => d.domain).join(', ');
    out.push({
      topic: 'backlinks',
      text: `${b.totalReferringDomains} referring domains are known to this instance's link graph${top ? `, busiest ${top}` : ''} (it holds ${b.coverage.pages} pages of ${b.coverage.sourceDomains} domains).`,
      evidence: [{ kind: 'backlinks', referringDomains: b.totalReferringDomains }],
    });
  }
  if (e.links && e.links.checked > 0) {
    const l = e.links;
    out.push({
      topic: 'links',
      text: `${l.linking} of ${l.checked} linking pages checked still link to the domain${l.unreachable ? ` (${l.unreachable} could not be read)` : ''}.`,
      evidence: l.pages.map((p) => ({ kind: 'page', url: p.sourceUrl, status: p.status }) as EvidenceRef),
    });
  }
  return out;
}

const QUESTIONS: Readonly<Record<ConcernRule, (c: Concern) => string>> = {
  recent_transfer: () => 'The domain was transferred recently: who held it before, and why was it moved?',
  expiring_soon: () => 'The registration is about to expire: will it be renewed before the sale, or the transfer made before it lapses?',
  pending_deletion: () => 'The registry is deleting the domain: can the seller still transfer it, and how will it be restored first?',
  registry_hold: () => 'The domain is on hold at the registry: why, and can the hold be lifted before the transfer?',
  parked_or_for_sale: () => 'Is the domain listed with a marketplace or parking service, and will every listing end when it is sold?',
  spam_history: () => 'The archive shows spam on the domain: was it penalised by search engines, and what was done to clean it up?',
  mail_records_missing: () => 'No mail server is set up: has the domain ever sent or received mail, and under whom?',
  owner_changed: (c) => `${c.text} Who owned the site before, and does any trademark or content claim come with it?`,
  registration_after_history: () => 'The domain lapsed and was registered again: what happened to the earlier owner\'s site and its links?',
  links_gone: () => 'Many known links to the domain are gone: which of its backlinks does the seller count on, and are they still in place?',
};

export function sellerQuestions(e: ReportEvidence, concerns: readonly Concern[]): Question[] {
  const out: Question[] = concerns.map((c) => ({ text: QUESTIONS[c.rule](c), concern: c.rule, evidence: c.evidence }));
  const r = e.registration;
  if (r?.found) {
    out.push({ text: 'Can the seller show control of the domain before payment (a TXT record or a page the buyer names)?', concern: null, evidence: [registrationRef(r, 'registrar', r.registrar?.name ?? null)] });
    out.push({ text: 'Is there any dispute, UDRP case or trademark claim on the name?', concern: null, evidence: [registrationRef(r, 'status', r.status.join(', ') || null)] });
  }
  if (e.mail && e.dns?.exists && e.mail.mx.length > 0 && (!e.mail.spf || !e.mail.dmarc)) {
    out.push({ text: 'Mail is set up without SPF or DMARC: is mail sent from the domain today, and from which services?', concern: null, evidence: [{ kind: 'dns', record: 'TXT', value: e.mail.spf }, { kind: 'dns', record: 'DMARC', value: e.mail.dmarc }] });
  }
  return out;
}

/** The report's findings, concerns and questions from its evidence, at `nowMs`. */
export function judgeReport(e: ReportEvidence, nowMs: number): ReportJudgement {
  const concerns = reportConcerns(e, nowMs);
  return { findings: reportFindings(e), concerns, questions: sellerQuestions(e, concerns) };
}
