/**
 * A report's check that linking pages still link: a sample of the pages the link graph saw
 * linking to the domain (pipeline/intel/links.ts `linkingPages`, spread over referring
 * domains), each read again through the scrape path within the report's budget. A page still
 * links when one of its links is on the domain (any host under it); a page that is gone
 * (404, 410) or whose links no longer reach the domain is `missing`; a page that could not
 * be read, or not in time, is `unreachable`.
 */
import { mapBounded } from '../runtime/bounded.js';
import type { CheckedLink, LinkCheck, LinksEvidence } from './evidence.js';
import { linkingPages } from './links.js';
import { readDomainName } from './names.js';
import type { PageOutcome, ReadPage } from './pages.js';
import { sectionError, type SectionError } from './sections.js';
import type { IntelSources } from './sources.js';

/** A linking page is read now, never from the cache: the copy the graph learned the link from says nothing new. */
export const LINKING_PAGE_MAX_AGE_MS = 0;

export interface LinkCheckContext {
  readonly sources: Pick<IntelSources, 'store' | 'flushLinks'>;
  readonly readPage: ReadPage;
  readonly pageTimeoutMs: number;
  readonly pageConcurrency: number;
  /** Aborted when the report's budget ends. */
  readonly signal: AbortSignal;
}

/** Whether any of `links` is on `domain` (the domain itself or a host under it). */
export function linksTo(links: readonly string[], domain: string): boolean {
  return links.some((link) => {
    const reading = readDomainName(link);
    return reading.ok && reading.name.domain === domain;
  });
}

function statusOf(outcome: PageOutcome | undefined, domain: string): { status: LinkCheck; code?: string } {
  if (!outcome) return { status: 'unreachable', code: 'report_budget' };
  if (!outcome.ok) return { status: 'unreachable', code: outcome.code };
  const { page } = outcome;
  if (page.statusCode === 404 || page.statusCode === 410) return { status: 'missing', code: `http_${page.statusCode}` };
  if (page.statusCode >= 400) return { status: 'unreachable', code: `http_${page.statusCode}` };
  return { status: linksTo(page.links, domain) ? 'linking' : 'missing' };
}

export async function checkLinks(domain: string, count: number, ctx: LinkCheckContext): Promise<{ value: LinksEvidence } | { error: SectionError }> {
  let sample;
  try {
    await ctx.sources.flushLinks();
    sample = await linkingPages(ctx.sources.store, domain, count);
  } catch (error) {
    return { error: sectionError('links', error) };
  }
  const outcomes = await mapBounded(
    sample,
    ctx.pageConcurrency,
    (p) => ctx.readPage(p.sourceUrl, { maxAgeMs: LINKING_PAGE_MAX_AGE_MS, timeoutMs: ctx.pageTimeoutMs, signal: ctx.signal }),
    ctx.signal,
  );
  const pages: CheckedLink[] = sample.map((p, i) => {
    const { status, code } = statusOf(outcomes[i], domain);
    return { sourceUrl: p.sourceUrl, targetUrl: p.targetUrl, lastSeen: p.lastSeen, status, ...(code ? { code } : {}) };
  });
  const count_ = (s: LinkCheck) => pages.filter((p) => p.status === s).length;
  return { value: { checked: pages.length, linking: count_('linking'), missing: count_('missing'), unreachable: count_('unreachable'), pages } };
}
