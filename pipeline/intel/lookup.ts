/**
 * POST /v1/domain: a domain's registration (RDAP), DNS records and backlinks (the link
 * graph), each section asked at once and each switched off by its flag. A section whose
 * source fails is `null` with an entry in `errors` (pipeline/intel/sections.ts); the lookup
 * still answers. It is charged PRICES.domainLookup when at least one section it asked for
 * answered, nothing otherwise.
 */
import { PRICES } from '../../schemas/api/prices.js';
import { backlinks as readBacklinks } from './links.js';
import type { DomainName } from './names.js';
import {
  backlinksSection,
  dnsSection,
  isSectionError,
  registrationSection,
  sectionError,
  type BacklinksSection,
  type DnsSection,
  type RegistrationSection,
  type SectionError,
} from './sections.js';
import type { IntelSources, SourceLimits } from './sources.js';

export const DNS_TYPES = ['A', 'AAAA', 'MX', 'NS', 'TXT'] as const;

export interface LookupOptions {
  readonly registration: boolean;
  readonly dns: boolean;
  readonly backlinks: boolean;
  readonly backlinkLimit: number;
}

export interface LookupContext {
  readonly sources: IntelSources;
  readonly limits: SourceLimits;
  readonly now: () => number;
  readonly signal?: AbortSignal;
}

export interface DomainAnswer {
  readonly domain: string;
  readonly unicode: string;
  readonly host: string;
  readonly registration?: RegistrationSection | null;
  readonly dns?: DnsSection | null;
  readonly backlinks?: BacklinksSection | null;
  readonly errors: readonly SectionError[];
}

/** One section's value, or its error. */
type Read<T> = { readonly value: T } | { readonly error: SectionError };

async function attempt<T>(section: SectionError['section'], work: () => Promise<T | SectionError>): Promise<Read<T>> {
  try {
    const value = await work();
    return isSectionError(value) ? { error: value } : { value };
  } catch (error) {
    return { error: sectionError(section, error) };
  }
}

export function readRegistration(name: DomainName, ctx: LookupContext): Promise<Read<RegistrationSection>> {
  return attempt('registration', async () => registrationSection(await ctx.sources.rdap.lookup(name.domain, { timeoutMs: ctx.limits.rdapTimeoutMs, ...(ctx.signal ? { signal: ctx.signal } : {}) }), ctx.now()));
}

export function readDns(name: DomainName, ctx: LookupContext): Promise<Read<DnsSection>> {
  return attempt('dns', async () => dnsSection(await ctx.sources.dns.lookup(name.domain, DNS_TYPES, ctx.signal ? { signal: ctx.signal } : {})));
}

export function readBacklinksSection(name: DomainName, limit: number, ctx: LookupContext): Promise<Read<BacklinksSection>> {
  return attempt('backlinks', async () => {
    await ctx.sources.flushLinks();
    return backlinksSection(await readBacklinks(ctx.sources.store, name.domain, limit));
  });
}

const skipped = Promise.resolve(null);

/** The lookup's answer and what it is charged. */
export async function lookupDomain(name: DomainName, options: LookupOptions, ctx: LookupContext): Promise<{ answer: DomainAnswer; credits: number }> {
  const [registration, dns, backlinks] = await Promise.all([
    options.registration ? readRegistration(name, ctx) : skipped,
    options.dns ? readDns(name, ctx) : skipped,
    options.backlinks ? readBacklinksSection(name, options.backlinkLimit, ctx) : skipped,
  ]);
  const errors: SectionError[] = [];
  const section = <T>(read: Read<T> | null): T | null | undefined => {
    if (read === null) return undefined;
    if ('error' in read) {
      errors.push(read.error);
      return null;
    }
    return read.value;
  };
  const answer: DomainAnswer = {
    domain: name.domain,
    unicode: name.unicode,
    host: name.host,
    ...withSection('registration', section(registration)),
    ...withSection('dns', section(dns)),
    ...withSection('backlinks', section(backlinks)),
    errors,
  };
  const asked = [registration, dns, backlinks].filter((r) => r !== null);
  const answered = asked.some((r) => r !== null && 'value' in r);
  return { answer, credits: answered ? PRICES.domainLookup.credits : 0 };
}

/** `{[key]: value}`, or nothing for a section switched off. */
function withSection<K extends string, T>(key: K, value: T | null | undefined): { [P in K]?: T | null } {
  return value === undefined ? {} : ({ [key]: value } as { [P in K]?: T | null });
}
