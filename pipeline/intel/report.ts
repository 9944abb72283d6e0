/**
 * POST /v1/domain/report: a buyer's report on a domain. Depths are cumulative (the spec):
 * `quick` reads registration, DNS, mail records and today's website; `buyer` adds the archive
 * history (one snapshot a year, `snapshots` of them, 6 by default), the known backlinks and a
 * check that a sample of linking pages still link (`verifyLinks`, 20 by default); `deep` is
 * `buyer` with 12 snapshots and 50 linking pages. An explicit `snapshots` or `verifyLinks`
 * overrides the depth's figure.
 *
 * Everything is asked at once. The archived snapshots and linking pages are read through the
 * scrape path within the report's budget (DOMAIN_REPORT_BUDGET_MS, and never past the
 * request's deadline): snapshots not read by then are `evidence.history.pending`, to load
 * with POST /v1/domain/history/snapshots. A snapshot this key loaded before is taken from the
 * store, not read again. The rules (pipeline/intel/rules.ts) turn the evidence into
 * findings, concerns and questions for the seller. The report and the snapshots it read are
 * stored for the key (pipeline/intel/records.ts).
 *
 * Charged the depth's flat price (charging rule 7), plus PRICES.extraSnapshot for each
 * snapshot read beyond those the depth includes; a snapshot taken from the store is free. A
 * report none of whose sources answered (registry, DNS, website, archive, link graph) is not
 * charged.
 */
import { REPORT_INCLUDED_SNAPSHOTS, REPORT_PRICES } from '../../schemas/api/prices.js';
import type { BatchWriter } from '../runtime/store/batch-writer.js';
import { archiveCaptures, loadYears } from './archive.js';
import type { HistoryEvidence, ReportEvidence, WebsiteEvidence } from './evidence.js';
import { includedYears, planYears, SNAPSHOT_CHARGES, snapshotCharge, type ArchiveCapture, type SnapshotEvidence } from './history.js';
import { checkLinks } from './link-check.js';
import { readBacklinksSection, readDns, readRegistration, type LookupContext } from './lookup.js';
import { readDomainName, type DomainName } from './names.js';
import { excerptOf, type ReadPage } from './pages.js';
import { storedSnapshots, writeReport, writeSnapshots, type ReportDepth, type ReportRecord, type StoredSnapshot } from './records.js';
import { judgeReport } from './rules.js';
import { mailSection, sectionError, type SectionError } from './sections.js';
import { pageSignals } from './signals.js';

export const REPORT_DEFAULTS: Readonly<Record<ReportDepth, { readonly snapshots: number; readonly verifyLinks: number }>> = {
  quick: { snapshots: 0, verifyLinks: 0 },
  buyer: { snapshots: 6, verifyLinks: 20 },
  deep: { snapshots: 12, verifyLinks: 50 },
};

/** Referring domains a report lists (the lookup's default `backlinkLimit`). */
export const REPORT_BACKLINKS = 100;
/** Today's website: a cached copy younger than this is read instead. */
export const WEBSITE_MAX_AGE_MS = 3_600_000;

export interface ReportRequest {
  readonly name: DomainName;
  readonly depth: ReportDepth;
  readonly snapshots: number | null;
  readonly verifyLinks: number | null;
}

export interface ReportContext extends LookupContext {
  readonly tenant: string;
  readonly writer: Pick<BatchWriter, 'write'>;
  readonly readPage: ReadPage;
  readonly pageTimeoutMs: number;
  readonly pageConcurrency: number;
  /** Epoch ms by which archived snapshots and linking pages must be read. */
  readonly budgetEndMs: number;
  readonly newId: () => string;
}

/** What a report's figures are read from: the request, its fields optional (`buyer` by default). */
export interface ReportAsk {
  readonly depth?: ReportDepth;
  readonly snapshots?: number | null;
  readonly verifyLinks?: number | null;
}

/** The figures a report runs with: its depth's, or the caller's. */
export function reportFigures(request: ReportAsk): { snapshots: number; verifyLinks: number; included: number } {
  const depth = request.depth ?? 'buyer';
  const defaults = REPORT_DEFAULTS[depth];
  return { snapshots: request.snapshots ?? defaults.snapshots, verifyLinks: request.verifyLinks ?? defaults.verifyLinks, included: REPORT_INCLUDED_SNAPSHOTS[depth] };
}

/** The most a report can cost: its depth's price and every snapshot beyond those included. */
export function reportEstimate(request: ReportAsk): number {
  const { snapshots, included } = reportFigures(request);
  return REPORT_PRICES[request.depth ?? 'buyer'].credits + Math.max(0, snapshots - included) * SNAPSHOT_CHARGES.extra.credits;
}

type Read<T> = { readonly value: T } | { readonly error: SectionError };

/** Today's home page: `https://<domain>/`, then `http://` when the first cannot be read at all. */
async function readWebsite(name: DomainName, ctx: ReportContext): Promise<Read<WebsiteEvidence>> {
  let last: { code: string; message: string } = { code: 'internal_error', message: 'not read' };
  for (const url of [`https://${name.domain}/`, `http://${name.domain}/`]) {
    const read = await ctx.readPage(url, { maxAgeMs: WEBSITE_MAX_AGE_MS, timeoutMs: ctx.pageTimeoutMs, ...(ctx.signal ? { signal: ctx.signal } : {}) });
    if (!read.ok) {
      last = read;
      continue;
    }
    const page = read.page;
    const landed = readDomainName(page.finalUrl);
    const redirectsTo = landed.ok && landed.name.domain !== name.domain ? landed.name.domain : null;
    return { value: { url, finalUrl: page.finalUrl, statusCode: page.statusCode, title: page.title, language: page.language, excerpt: excerptOf(page.markdown), signals: pageSignals(page), redirectsTo } };
  }
  return { error: { section: 'website', code: last.code, message: `today's home page could not be read: ${last.message}` } };
}

interface HistoryRead {
  readonly history: HistoryEvidence;
  readonly captures: readonly ArchiveCapture[];
  readonly plan: readonly number[];
  /** Snapshots read now (not from the store). */
  readonly fresh: readonly SnapshotEvidence[];
}

async function readHistory(name: DomainName, count: number, ctx: ReportContext, budget: AbortSignal): Promise<Read<HistoryRead>> {
  let captures: ArchiveCapture[];
  try {
    captures = await archiveCaptures(name.domain, ctx.sources, ctx.limits, budget);
  } catch (error) {
    return { error: sectionError('history', error) };
  }
  const plan = planYears(captures, count);
  const stored = await storedSnapshots(ctx.sources.store, ctx.tenant, name.domain);
  const toRead = plan.filter((y) => !stored.has(y)).map((y) => captures.find((c) => c.year === y) as ArchiveCapture);
  const read = await loadYears(toRead, { readPage: ctx.readPage, pageTimeoutMs: ctx.pageTimeoutMs, concurrency: ctx.pageConcurrency, signal: budget });
  const reused = plan.flatMap((y) => (stored.has(y) ? [(stored.get(y) as StoredSnapshot).evidence] : []));
  const snapshots = [...reused, ...read.loaded].sort((a, b) => b.year - a.year);
  return { value: { history: { captures, snapshots, pending: read.pending, failed: read.failed }, captures, plan, fresh: read.loaded } };
}

const valueOf = <T>(read: Read<T> | null, errors: SectionError[]): T | null => {
  if (read === null) return null;
  if ('error' in read) {
    errors.push(read.error);
    return null;
  }
  return read.value;
};

export async function makeReport(request: ReportRequest, ctx: ReportContext): Promise<{ answer: Record<string, unknown>; credits: number }> {
  const { name } = request;
  const figures = reportFigures(request);
  const startedMs = ctx.now();
  const stop = new AbortController();
  const timer = setTimeout(() => stop.abort(), Math.max(0, ctx.budgetEndMs - startedMs));
  const budget = ctx.signal ? AbortSignal.any([ctx.signal, stop.signal]) : stop.signal;
  const dnsCtx = ctx.signal ? { signal: ctx.signal } : {};
  try {
    const [registration, dns, dmarc, website, history, backlinks, links] = await Promise.all([
      readRegistration(name, ctx),
      readDns(name, ctx),
      ctx.sources.dns.lookup(`_dmarc.${name.domain}`, ['TXT'], dnsCtx).catch(() => null),
      readWebsite(name, ctx),
      figures.snapshots > 0 ? readHistory(name, figures.snapshots, ctx, budget) : null,
      request.depth !== 'quick' || figures.verifyLinks > 0 ? readBacklinksSection(name, REPORT_BACKLINKS, ctx) : null,
      figures.verifyLinks > 0 ? checkLinks(name.domain, figures.verifyLinks, { ...ctx, signal: budget }) : null,
    ]);
    const errors: SectionError[] = [];
    const dnsSection = valueOf(dns, errors);
    const historyRead = valueOf(history, errors);
    const evidence: ReportEvidence = {
      registration: valueOf(registration, errors),
      dns: dnsSection,
      mail: dnsSection ? mailSection(dnsSection, dmarc) : null,
      website: valueOf(website, errors),
      history: historyRead?.history ?? null,
      backlinks: valueOf(backlinks, errors),
      links: valueOf(links, errors),
    };
    const nowMs = ctx.now();
    const judgement = judgeReport(evidence, nowMs);
    const plan = historyRead?.plan ?? [];
    const included = includedYears(plan, figures.included);
    const record: ReportRecord = {
      id: ctx.newId(),
      tenant: ctx.tenant,
      domain: name.domain,
      createdAtMs: nowMs,
      depth: request.depth,
      snapshots: figures.snapshots,
      included,
      captures: historyRead?.captures ?? [],
    };
    const answer = {
      reportId: record.id,
      domain: name.domain,
      unicode: name.unicode,
      host: name.host,
      depth: request.depth,
      snapshots: figures.snapshots,
      verifyLinks: figures.verifyLinks,
      generatedAt: new Date(nowMs).toISOString(),
      ...judgement,
      evidence,
      errors,
    };
    const fresh = historyRead?.fresh ?? [];
    await writeSnapshots(ctx.writer, ctx.tenant, name.domain, fresh.map((evidence) => ({ year: evidence.year, loadedAtMs: nowMs, reportId: record.id, evidence })));
    await writeReport(ctx.writer, record, answer);
    const extras = fresh.filter((s) => snapshotCharge(s.year, { stored: false, included, report: null, nowMs }) === 'extra').length;
    // A report none of whose sources answered has nothing to show: it is not charged.
    const answered = Object.values(evidence).some((section) => section !== null);
    return { answer, credits: answered ? REPORT_PRICES[request.depth].credits + extras * SNAPSHOT_CHARGES.extra.credits : 0 };
  } finally {
    clearTimeout(timer);
  }
}
