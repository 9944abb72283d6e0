/**
 * The contract every open business register client speaks (leads, pipeline/leads/): one
 * question (what kind of business, optionally where, how many) answered with the register's
 * entries in one shape. Here, beside the clients that speak it, so that the clients and the
 * leads rules that ask them may both import it (as web-search.ts is for search providers).
 *
 * Each register states the licence its data is published under (`RegisterLicence`): a lead
 * built from an entry carries it, and a run's `summary.attribution` lists it.
 */
import type { HttpFetcher } from '../runtime/net/http.js';
import { text } from './json-shapes.js';
import { getJson, serviceFetcher, type ServiceAnswer } from './service-http.js';

export interface RegisterQuery {
  /** What kind of business, as the caller wrote it (`dentists`, `boulangerie`). */
  readonly what: string;
  /** A place the entries should be in (a town, a postcode), or null for the whole register. */
  readonly where: string | null;
  /** Entries wanted at most (each client also caps it by its own page budget). */
  readonly limit: number;
  /**
   * The register's own activity codes of the kind of business (NAF, SIC, næringskode), when
   * the leads rules know them (pipeline/leads/activities.ts): the register is then searched
   * by activity in the place, and `what` is not matched against names. Null: by name.
   */
  readonly codes?: readonly string[] | null;
}

export interface RegisterContext {
  /** Time for the whole question, every page asked included. */
  readonly timeoutMs: number;
  readonly signal?: AbortSignal;
}

export interface RegisterAddress {
  readonly street: string | null;
  readonly postcode: string | null;
  readonly city: string | null;
  /** Two-letter code. */
  readonly country: string;
}

export interface RegisterEntry {
  /** The register's identifier (SIREN, company number, organisasjonsnummer). */
  readonly id: string;
  readonly name: string;
  readonly address: RegisterAddress;
  readonly formattedAddress: string | null;
  readonly phone: string | null;
  readonly website: string | null;
  /** The activity code the register files it under (NAF/APE, SIC, NACE), with its label when given. */
  readonly activity: { readonly code: string; readonly label: string | null } | null;
  /** `active`, `dissolved`, … as the register says; null when it does not. */
  readonly status: string | null;
  readonly coordinates: { readonly lat: number; readonly lon: number } | null;
  /** The entry's public page on the register's site. */
  readonly url: string | null;
}

export interface RegisterLicence {
  /** The notice to show with the data. */
  readonly text: string;
  /** SPDX-like short name (`etalab-2.0`, `OGL-UK-3.0`, `NLOD-2.0`). */
  readonly license: string;
  readonly url: string;
}

/** A business register client: the contract of this file. */
export interface BusinessRegister {
  /** The source key a leads run names (`fr_sirene`, `uk_companies_house`, `no_brreg`). */
  readonly key: string;
  readonly label: string;
  /** Two-letter codes of the countries it covers. */
  readonly countries: readonly string[];
  readonly licence: RegisterLicence;
  search(query: RegisterQuery, ctx: RegisterContext): Promise<RegisterEntry[]>;
}

export interface RegisterClientOptions {
  /** The register's base URL (its setting). */
  readonly baseUrl: string;
  readonly fetcher?: HttpFetcher;
}

/** Largest answer read from a register, per page. */
export const REGISTER_MAX_BYTES = 2 * 1024 * 1024;
/** Pages one question reads at most, whatever its limit. */
export const REGISTER_MAX_PAGES = 5;

/** Non-blank parts joined with `, `; null when none is left. */
export function joined(parts: readonly (string | null | undefined)[], separator = ', '): string | null {
  const kept = parts.map((p) => text(p)).filter((p): p is string => p !== null);
  return kept.length ? kept.join(separator) : null;
}

/** A finite number, or a string holding one; null otherwise. */
export function numberOf(v: unknown): number | null {
  const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : NaN;
  return Number.isFinite(n) ? n : null;
}

/** Coordinates when both read and are on the globe. */
export function coordinatesOf(lat: unknown, lon: unknown): { lat: number; lon: number } | null {
  const la = numberOf(lat);
  const lo = numberOf(lon);
  return la !== null && lo !== null && Math.abs(la) <= 90 && Math.abs(lo) <= 180 ? { lat: la, lon: lo } : null;
}

/** The time left before `deadline`, at least 1 ms. */
export const leftOf = (deadline: number): number => Math.max(1, deadline - Date.now());

/** One page of a register's answer: its items (not yet read as entries) and whether another page may follow. */
export interface RegisterPage {
  readonly items: readonly unknown[];
  readonly more: boolean;
}

/**
 * The paging every register client shares: pages asked one after another (`pageOf(n, timeoutMs)`,
 * n from 0, each within what is left of the question's time; null: no more, as a register that
 * answers "nothing matches" with an error says), each item read as an entry (`entryOf`, null
 * for one left out), an entry seen before skipped, until `limit` entries, REGISTER_MAX_PAGES
 * pages, or a page that says it is the last.
 */
export async function pagedEntries(
  query: Pick<RegisterQuery, 'limit'>,
  ctx: RegisterContext,
  pageOf: (page: number, timeoutMs: number) => Promise<RegisterPage | null>,
  entryOf: (item: unknown) => RegisterEntry | null,
): Promise<RegisterEntry[]> {
  const deadline = Date.now() + ctx.timeoutMs;
  const out: RegisterEntry[] = [];
  const seen = new Set<string>();
  for (let page = 0; page < REGISTER_MAX_PAGES && out.length < query.limit; page++) {
    const answer = await pageOf(page, leftOf(deadline));
    if (!answer) break;
    for (const item of answer.items) {
      const entry = entryOf(item);
      if (entry && !seen.has(entry.id) && out.length < query.limit) {
        seen.add(entry.id);
        out.push(entry);
      }
    }
    if (answer.items.length === 0 || !answer.more) break;
  }
  return out;
}


/**
 * What every register client shares: its base URL and fetcher from the settings, and one GET of
 * a page of answers within the registers' size cap and the run's signal.
 */
export abstract class RegisterHttpClient {
  protected readonly base: URL;
  protected readonly fetcher: HttpFetcher;

  protected constructor(
    protected readonly service: string,
    options: RegisterClientOptions,
  ) {
    this.base = new URL(options.baseUrl);
    this.fetcher = options.fetcher ?? serviceFetcher();
  }

  protected getPage(url: URL, timeoutMs: number, ctx: RegisterContext, headers?: Record<string, string>): Promise<ServiceAnswer> {
    return getJson(this.service, { url, timeoutMs, maxBytes: REGISTER_MAX_BYTES, ...(headers ? { headers } : {}), ...(ctx.signal ? { signal: ctx.signal } : {}) }, this.fetcher);
  }
}
