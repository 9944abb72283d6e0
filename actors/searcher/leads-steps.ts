/**
 * The steps of a Find Leads run (actors/searcher/leads.ts carries a run out): the place `where`
 * names, every source asked at once within its time, and each lead's website read for contacts
 * by company enrichment; the run's end latch watched meanwhile.
 */
import { activityOf, registerCodes } from '../../pipeline/leads/activities.js';
import { fromEntry, fromPlace, mergeLeads, type Lead, type LeadContacts } from '../../pipeline/leads/leads.js';
import { CANCEL_POLL_MS, endedAs, type LeadsRun, type SourceOutcome } from '../../pipeline/leads/record.js';
import { covers, OSM, OSM_SOURCE, type LeadSource } from '../../pipeline/leads/sources.js';
import { errorCode } from '../../pipeline/runtime/errors.js';
import { within } from '../../pipeline/runtime/within.js';
import { parseJsonObject } from '../../pipeline/runtime/json.js';
import type { Logger } from '../../pipeline/runtime/log.js';
import { ask } from '../../pipeline/runtime/request-reply.js';
import type { State } from '../../pipeline/runtime/state/state.js';
import type { NominatimPlace } from '../../pipeline/clients/nominatim.js';
import { PLACES_MAX_LIMIT, searchPlaces } from '../../pipeline/search/places.js';
import type { BusinessRegister } from '../../pipeline/clients/business-register.js';
import type { KeyRegistry } from '../../pipeline/keys/registry.js';
import type { Requester } from '../../pipeline/runtime/request-reply.js';
import type { BatchWriter } from '../../pipeline/runtime/store/batch-writer.js';
import type { PlacesDeps } from '../../pipeline/search/places.js';

/** Websites read for contacts at once, per run. */
export const CONTACT_CONCURRENCY = 4;
/** Time a run spends reading its leads' websites, in all; leads not reached by then have no contacts. */
export const CONTACTS_BUDGET_MS = 120_000;

export interface LeadsDeps {
  /** Places search's clients (Nominatim also resolves `where`). */
  readonly places: Omit<PlacesDeps, 'timeoutMs' | 'signal'>;
  /** The configured registers (pipeline/leads/sources.ts configuredRegisters). */
  readonly registers: readonly BusinessRegister[];
  /** LEADS_SOURCE_TIMEOUT_MS. */
  readonly sourceTimeoutMs: number;
  readonly state: State;
  readonly writer: Pick<BatchWriter, 'write'>;
  readonly keys: Pick<KeyRegistry, 'get' | 'reserve' | 'settle' | 'release'>;
  /** The pool's Requester (company enrichment asks the intel pool), started on first use. */
  readonly requester: () => Promise<Pick<Requester, 'request'>>;
  /** How long one website's company read may take (SITE_READ_BUDGET_MS, a page's timeout and the pipeline's slack). */
  readonly companyWaitMs: number;
  readonly log: Logger;
  readonly now?: () => number;
}

export const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** The place `where` names (the first of Nominatim's answers), or null. */
export async function placeOf(deps: LeadsDeps, where: string, country: string | null, timeoutMs: number, signal?: AbortSignal): Promise<NominatimPlace | null> {
  const found = await deps.places.nominatim.search({ q: where, limit: 1, ...(country ? { countrycodes: country } : {}) }, { timeoutMs, ...(signal ? { signal } : {}) });
  return found[0] ?? null;
}

export const countryOfPlace = (place: NominatimPlace | null): string | null => {
  const code = place?.address.country_code;
  return code && /^[a-z]{2}$/i.test(code) ? code.toUpperCase() : null;
};

/** Aborts `controller` when the run's end latch is taken (DELETE), looking every CANCEL_POLL_MS. */
export function watchEnd(state: State, id: string, controller: AbortController): () => void {
  let stopped = false;
  const timer = setInterval(() => {
    if (stopped) return;
    endedAs(state, id).then(
      (ended) => {
        if (ended && !controller.signal.aborted) controller.abort(new Error(`run ${ended.status}`));
      },
      () => undefined,
    );
  }, CANCEL_POLL_MS);
  return () => {
    stopped = true;
    clearInterval(timer);
  };
}

export interface Asked {
  readonly source: LeadSource;
  readonly leads: Lead[];
  readonly error: string | null;
}

/** Asks one source for the run's businesses. */
async function askSource(source: LeadSource, run: LeadsRun, place: NominatimPlace | null, country: string | null, deps: LeadsDeps, signal: AbortSignal): Promise<Lead[]> {
  const { params } = run;
  if (source.key === OSM_SOURCE) {
    const answer = await searchPlaces(
      // Places search answers at most PLACES_MAX_LIMIT places; the registers make up the rest of `limit`.
      { query: params.query, location: params.where, ...(country ? { country } : {}), limit: Math.min(params.limit, PLACES_MAX_LIMIT) },
      { ...deps.places, timeoutMs: deps.sourceTimeoutMs, signal },
    );
    return answer.places.map((p) => fromPlace(p, OSM.licence));
  }
  const register = deps.registers.find((r) => r.key === source.key);
  if (!register) throw new Error(`${source.key} is not configured`);
  const where = place?.name ?? params.where;
  const codes = registerCodes(activityOf(params.query), register.key);
  const entries = await register.search({ what: params.query, where, limit: params.limit, codes }, { timeoutMs: deps.sourceTimeoutMs, signal });
  return entries.map((e) => fromEntry(source, e));
}

/** The contacts company enrichment finds on the website; null when it could not read it. */
async function contactsOf(run: LeadsRun, website: string, deps: LeadsDeps, timeoutMs: number, signal: AbortSignal): Promise<LeadContacts | null> {
  const requester = await deps.requester();
  const reply = await ask(requester, { requestId: run.id, tenant: run.tenant, signal }, 'intelRequested', { kind: 'company', query: JSON.stringify({ url: website, contacts: true }) }, timeoutMs);
  if (!reply.ok || !reply.data) return null;
  const contacts = (parseJsonObject(reply.data) ?? {}).contacts as LeadContacts | null | undefined;
  return contacts && typeof contacts === 'object' ? contacts : null;
}


const hasContacts = (c: LeadContacts | null) => c !== null && c.emails.length + c.phones.length + c.contactForms.length + c.socialLinks.length > 0;

/**
 * Asks every source of the run that covers `country` at once, each within the sources' time;
 * `onLeads` gets the first `limit` merged leads as each source answers. What each source gave
 * (or why it gave nothing) is in `outcomes`; nothing is left when `signal` aborts.
 */
export async function askSources(
  run: LeadsRun,
  sources: readonly LeadSource[],
  at: { readonly place: NominatimPlace | null; readonly country: string | null },
  deps: LeadsDeps,
  signal: AbortSignal,
  onLeads: (leads: Lead[]) => Promise<void>,
): Promise<{ outcomes: SourceOutcome[]; leads: Lead[] }> {
  const { place, country } = at;
  const asked = run.params.sources.map((key) => sources.find((s) => s.key === key)).filter((s): s is LeadSource => s !== undefined);
  const results: (Asked | null)[] = asked.map(() => null);
  let leads: Lead[] = [];
  await Promise.all(
    asked.map(async (source, i) => {
      let result: Asked;
      if (!covers(source, country)) {
        result = { source, leads: [], error: `not asked: it covers ${source.countries.join(', ')}, not ${country ?? 'an unknown country'}` };
      } else if (source.key === OSM_SOURCE && !run.params.where) {
        result = { source, leads: [], error: 'not asked: OpenStreetMap needs `where`' };
      } else {
        try {
          result = { source, leads: await within((s) => askSource(source, run, place, country, deps, s), { ms: deps.sourceTimeoutMs, signal }), error: null };
        } catch (error) {
          if (signal.aborted) return;
          result = { source, leads: [], error: `${errorCode(error) ?? 'failed'}: ${messageOf(error)}` };
          deps.log.warn({ runId: run.id, source: source.key, err: messageOf(error) }, 'leads source failed');
        }
      }
      results[i] = result;
      leads = mergeLeads(results.flatMap((r) => r?.leads ?? [])).slice(0, run.params.limit);
      if (!signal.aborted) await onLeads(leads);
    }),
  );
  const outcomes = results.filter((r): r is Asked => r !== null).map((r) => ({ key: r.source.key, found: r.leads.length, error: r.error }));
  return { outcomes, leads };
}

/**
 * Reads each lead's website for contacts, CONTACT_CONCURRENCY at once within CONTACTS_BUDGET_MS
 * in all, writing them into `leads` in place: how many websites were looked at and how many
 * gave contacts.
 */
export async function readContacts(run: LeadsRun, leads: Lead[], deps: LeadsDeps, signal: AbortSignal, log: Logger): Promise<{ looked: number; found: number }> {
  const now = deps.now ?? Date.now;
  const deadline = now() + CONTACTS_BUDGET_MS;
  const queue = leads.map((l, i) => [l, i] as const).filter(([l]) => l.website);
  let next = 0;
  let looked = 0;
  let found = 0;
  const worker = async () => {
    while (next < queue.length && !signal.aborted && now() < deadline) {
      const [lead, at] = queue[next++] as readonly [Lead, number];
      looked++;
      try {
        const contacts = await contactsOf(run, lead.website as string, deps, Math.max(1, Math.min(deps.companyWaitMs, deadline - now())), signal);
        if (hasContacts(contacts)) found++;
        leads[at] = { ...lead, contacts };
      } catch (error) {
        if (signal.aborted) return;
        log.info({ runId: run.id, website: lead.website, code: errorCode(error) }, 'contacts not read');
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONTACT_CONCURRENCY, queue.length) }, worker));
  return { looked, found };
}
