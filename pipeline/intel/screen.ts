/**
 * POST /v1/domain/screen: up to 500 names (domains or URLs on them), each read as
 * pipeline/intel/names.ts reads a domain, checked once however often it is given, and each
 * answered with what its registry and DNS say:
 *
 * - `registered`: the registry holds a record of it;
 * - `likely_available`: no registry record, and no delegation or address in DNS;
 * - `no_registry_record`: no registry record, and DNS not asked (`dns: false`), or DNS still
 *   answering for the name (`dns: "resolves"`), or DNS failing (`dns: "unknown"`);
 * - `unknown`: the registry did not answer (down, rate-limited, slow, none for the TLD), or
 *   the screen's time ran out before the name was asked; `error` says which;
 * - `invalid`: not a domain name (`reason` as the names module gives it); never sent anywhere.
 *
 * Names are asked in parallel, at most `concurrency` at once (the RDAP client further bounds
 * each registry server); a name not started by the deadline is `unknown`. Charged
 * PRICES.screenedName per distinct name the registry answered for (a record or none);
 * invalid names, duplicates and unanswered names are free (charging rule 6).
 */
import { PRICES } from '../../schemas/api/prices.js';
import { mapBounded } from '../runtime/bounded.js';
import type { LookupContext } from './lookup.js';
import { readDomainName, type NameProblem } from './names.js';
import { sectionError, type SectionError } from './sections.js';

export const SCREEN_STATUSES = ['registered', 'likely_available', 'no_registry_record', 'unknown', 'invalid'] as const;
export type ScreenStatus = (typeof SCREEN_STATUSES)[number];

export interface ScreenError {
  readonly code: string;
  readonly message: string;
  readonly retryAfter?: number;
}

export interface ScreenResult {
  readonly input: string;
  /** The registrable domain checked (A-labels); null for an invalid name. */
  readonly domain: string | null;
  readonly status: ScreenStatus;
  /** For `invalid`: why the name is not a domain. */
  readonly reason?: NameProblem;
  readonly message?: string;
  /** True for a name already given earlier in the list (answered with the first one's result, charged once). */
  readonly duplicate?: true;
  /** The RDAP server that answered. */
  readonly registry?: string;
  /** For `registered`: when the registration expires, as the registry says. */
  readonly expires?: string | null;
  /** What DNS said of a name without a registry record: `none`, `resolves`, or `unknown` when it failed. */
  readonly dns?: 'none' | 'resolves' | 'unknown';
  readonly error?: ScreenError;
}

export interface ScreenAnswer {
  readonly results: readonly ScreenResult[];
  readonly counts: Readonly<Record<ScreenStatus, number>> & { readonly duplicates: number };
  /** Distinct names the registry answered for: what the screen is charged for. */
  readonly answered: number;
}

export interface ScreenContext extends LookupContext {
  /** Names asked at once (DOMAIN_SCREEN_CONCURRENCY). */
  readonly concurrency: number;
  /** Epoch ms by which the screen answers; names not asked by then are `unknown`. */
  readonly deadlineMs: number;
}

const TIMED_OUT: ScreenError = { code: 'screen_deadline', message: 'the screen ran out of time before the registry answered for this name; screen it again' };

type Checked = Omit<ScreenResult, 'input' | 'duplicate'> & { readonly answered: boolean };

function failure(error: SectionError): ScreenError {
  return { code: error.code, message: error.message, ...(error.retryAfter !== undefined ? { retryAfter: error.retryAfter } : {}) };
}

async function checkName(domain: string, dns: boolean, ctx: ScreenContext, signal: AbortSignal): Promise<Checked> {
  const timeoutMs = Math.max(1, Math.min(ctx.limits.rdapTimeoutMs, ctx.deadlineMs - ctx.now()));
  let lookup;
  try {
    lookup = await ctx.sources.rdap.lookup(domain, { timeoutMs, signal });
  } catch (error) {
    return { domain, status: 'unknown', error: signal.aborted ? TIMED_OUT : failure(sectionError('registration', error)), answered: false };
  }
  if (lookup.outcome === 'no_registry') {
    return { domain, status: 'unknown', error: { code: 'registry_unsupported', message: 'no RDAP service is known for its top-level domain' }, answered: false };
  }
  if (lookup.outcome === 'found') return { domain, status: 'registered', registry: lookup.registry, expires: lookup.domain.expires, answered: true };
  if (!dns) return { domain, status: 'no_registry_record', registry: lookup.registry, answered: true };
  try {
    const exists = await ctx.sources.dns.exists(domain, { signal });
    return exists
      ? { domain, status: 'no_registry_record', registry: lookup.registry, dns: 'resolves', answered: true }
      : { domain, status: 'likely_available', registry: lookup.registry, dns: 'none', answered: true };
  } catch (error) {
    return { domain, status: 'no_registry_record', registry: lookup.registry, dns: 'unknown', error: failure(sectionError('dns', error)), answered: true };
  }
}

export async function screenNames(inputs: readonly string[], options: { readonly dns: boolean }, ctx: ScreenContext): Promise<{ answer: ScreenAnswer; credits: number }> {
  const readings = inputs.map((input) => ({ input, reading: readDomainName(input) }));
  const distinct = [...new Set(readings.flatMap((r) => (r.reading.ok ? [r.reading.name.domain] : [])))];
  const stop = new AbortController();
  const timer = setTimeout(() => stop.abort(), Math.max(0, ctx.deadlineMs - ctx.now()));
  const signal = ctx.signal ? AbortSignal.any([ctx.signal, stop.signal]) : stop.signal;
  let checked: (Checked | undefined)[];
  try {
    checked = await mapBounded(distinct, ctx.concurrency, (domain) => checkName(domain, options.dns, ctx, signal), signal);
  } finally {
    clearTimeout(timer);
  }
  const byDomain = new Map(distinct.map((domain, i) => [domain, checked[i] ?? ({ domain, status: 'unknown', error: TIMED_OUT, answered: false } as Checked)]));
  const seen = new Set<string>();
  const results = readings.map(({ input, reading }): ScreenResult => {
    if (!reading.ok) return { input, domain: null, status: 'invalid', reason: reading.problem, message: reading.message };
    const { answered: _answered, ...result } = byDomain.get(reading.name.domain) as Checked;
    const duplicate = seen.has(reading.name.domain);
    seen.add(reading.name.domain);
    return { input, ...result, ...(duplicate ? { duplicate: true as const } : {}) };
  });
  const counts = { registered: 0, likely_available: 0, no_registry_record: 0, unknown: 0, invalid: 0, duplicates: 0 };
  for (const r of results) {
    if (r.duplicate) counts.duplicates++;
    else counts[r.status]++;
  }
  const answered = [...byDomain.values()].filter((c) => c.answered).length;
  return { answer: { results, counts, answered }, credits: answered * PRICES.screenedName.credits };
}
