/**
 * Find Leads in the searcher pool (LeadsRequested, actors/searcher/index.ts): the sources
 * question of GET /v1/leads/sources, and the runs of POST /v1/leads carried out to their end.
 *
 * **Sources** (`kind: sources`, answered on the reply topic, free): the sources this instance
 * offers (pipeline/leads/sources.ts) that cover the country: `country` when given, else the
 * country of the place `where` names (Nominatim, through places search's client and its
 * cache), `country: null` when Nominatim knows no such place (every source is then listed).
 *
 * **A run** (`kind: run`, no reply: the caller polls GET /v1/leads/{id}), over its record
 * (pipeline/leads/record.ts):
 * 1. A run already ended (cancelled while queued) is only written `final`. Otherwise it is
 *    `running` and holds `limit` leads' credits on its key (PRICES.lead); a key that cannot
 *    cover them (or is revoked) ends the run `failed`, `insufficient_credits`, costing nothing.
 *    A run found `running` (its event delivered again after its process stopped) resumes:
 *    it keeps the hold it had and asks its sources again.
 * 2. `where` is resolved to a place (its country, when `country` was not given, decides the
 *    registers asked; its name is the registers' place). Then every source of the run that
 *    covers the country is asked at once, each within LEADS_SOURCE_TIMEOUT_MS:
 *    OpenStreetMap through places search (what `query` names, in `where`), each register by
 *    the activity codes of the kind `query` names (pipeline/leads/activities.ts), else by
 *    name, in the place. As each answers, its leads are merged with those before
 *    (pipeline/leads/leads.ts, in the run's source order) and the first `limit` written to the
 *    record, so GET shows them (`partial: true`, without contacts). A source that fails or is
 *    too slow is named in `summary.sources` and the run's `warning`; when every source fails
 *    the run is `failed`.
 * 3. With `contacts`, each lead's website is read by company enrichment (IntelRequested
 *    `company` with contacts, the intel pool's POST /v1/company through the fetch path and its
 *    SSRF guard), CONTACT_CONCURRENCY at once, within CONTACTS_BUDGET_MS in all; a website
 *    that cannot be read leaves the lead without contacts.
 * 4. The run ends `completed` (or `cancelled`: DELETE took the end latch; the run saw it
 *    within CANCEL_POLL_MS, stopped its outside calls and kept what it had). It is charged
 *    PRICES.lead per lead delivered, the hold settled to that, and written `final` with its
 *    `summary`: the sources' outcomes and the attribution of every source whose data is in
 *    the leads.
 */
import { attributionOf, type Lead } from '../../pipeline/leads/leads.js';
import {
  CANCEL_POLL_MS,
  endedAs,
  liveRun,
  saveRun,
  takeEnd,
  type EndStatus,
  type LeadsRun,
  type RunSummary,
  type SourceOutcome,
} from '../../pipeline/leads/record.js';
import { allSources, covers, type LeadSource } from '../../pipeline/leads/sources.js';
import { errorCode } from '../../pipeline/runtime/errors.js';
import { parseJsonObject } from '../../pipeline/runtime/json.js';
import type { Logger } from '../../pipeline/runtime/log.js';
import type { Outcome } from '../../pipeline/runtime/pool.js';
import { replyTo } from '../../pipeline/runtime/request-reply.js';
import type { NominatimPlace } from '../../pipeline/clients/nominatim.js';
import { PRICES } from '../../schemas/api/prices.js';
import type { EventValue } from '../../schemas/events/index.js';
import { askSources, CONTACTS_BUDGET_MS, countryOfPlace, messageOf, placeOf, readContacts, watchEnd, type LeadsDeps } from './leads-steps.js';
import { within } from '../../pipeline/runtime/within.js';

export type LeadsRequested = EventValue<'LeadsRequested'>;

export { CONTACT_CONCURRENCY, CONTACTS_BUDGET_MS } from './leads-steps.js';

/** The longest a run takes: its sources, then its contacts, and the writes around them. */
export const runMaxMs = (sourceTimeoutMs: number) => sourceTimeoutMs + CONTACTS_BUDGET_MS + 30_000;

export type { LeadsDeps } from './leads-steps.js';

const perLead = PRICES.lead.credits;

async function answerSources(event: LeadsRequested, deps: LeadsDeps, signal: AbortSignal, log: Logger): Promise<Outcome> {
  const q = parseJsonObject(event.query) ?? {};
  const now = deps.now ?? Date.now;
  const given = typeof q.country === 'string' && /^[a-z]{2}$/i.test(q.country) ? q.country.toUpperCase() : null;
  const where = typeof q.where === 'string' && q.where.trim() ? q.where.trim() : null;
  let country = given;
  let area: string | null = null;
  if (!given && where) {
    const place = await placeOf(deps, where, null, Math.max(1, event.deadlineMs - now() - 1_000), signal);
    country = countryOfPlace(place);
    area = place?.displayName ?? null;
  }
  const sources = allSources(deps.registers)
    .filter((s) => covers(s, country))
    .map((s) => ({ key: s.key, label: s.label, countries: s.countries }));
  const data = { country, ...(where ? { where, area } : {}), sources };
  log.info({ country, sources: sources.length }, 'leads sources answered');
  return { kind: 'ack', emit: replyTo(event, { ok: true, data: JSON.stringify(data), errorCode: null, errorMessage: null, credits: 0, source: null }, log) };
}

// ---- a run --------------------------------------------------------------------------------

class RunWriter {
  constructor(
    private run: LeadsRun,
    private readonly deps: LeadsDeps,
  ) {}
  get current(): LeadsRun {
    return this.run;
  }
  async save(change: Partial<LeadsRun>, store = false): Promise<LeadsRun> {
    this.run = await saveRun(this.deps, { ...this.run, ...change }, (this.deps.now ?? Date.now)(), store);
    return this.run;
  }
}

/** Carries out the run to its end (see the file comment). */
async function carryOut(event: LeadsRequested, deps: LeadsDeps, signal: AbortSignal, log: Logger): Promise<Outcome> {
  const id = event.runId ?? '';
  const found = await liveRun(deps.state, id);
  if (!found || found.tenant !== event.tenant) {
    log.warn({ runId: id }, 'leads run not found in state; nothing to do');
    return { kind: 'ack' };
  }
  if (found.final) return { kind: 'ack' };
  const writer = new RunWriter(found, deps);
  const before = await endedAs(deps.state, id);
  if (before && found.held > 0) {
    // Ended while a process that stopped carried it: keep and pay for the leads it had written.
    const account = await deps.keys.get(found.tenant);
    return end(writer, deps, log, before.status, before.error, found.summary, account, found.held, null, found.leads);
  }
  if (before) {
    // Cancelled while queued: it never starts and costs nothing.
    await writer.save({ status: before.status, error: before.error, leads: [], held: 0, creditsUsed: 0, final: true, stage: 'done' }, true);
    log.info({ runId: id, status: before.status }, 'leads run ended before it started');
    return { kind: 'ack' };
  }
  const resumed = found.status === 'running';
  await writer.save({ status: 'running', stage: 'sources' }, true);

  // The hold: `limit` leads' credits (kept when the run resumes).
  const account = await deps.keys.get(found.tenant);
  if (!account || account.revoked) return end(writer, deps, log, 'failed', 'the key is revoked', null);
  let held = found.held;
  if (held === 0) {
    const need = found.params.limit * perLead;
    if (!(await deps.keys.reserve(account, need))) {
      return end(writer, deps, log, 'failed', `insufficient_credits: this run holds up to ${need} credits (${found.params.limit} leads at ${perLead}); the key's balance does not cover them`, null);
    }
    held = need;
    await writer.save({ held });
  }
  log.info({ runId: id, resumed, held }, 'leads run started');

  const controller = new AbortController();
  const onShutdown = () => controller.abort(signal.reason);
  signal.addEventListener('abort', onShutdown, { once: true });
  const stopWatching = watchEnd(deps.state, id, controller);
  let outcomes: SourceOutcome[] = [];
  let summaryBase: Pick<RunSummary, 'country' | 'area'> = { country: found.params.country, area: null };
  let leads: Lead[] = [];
  let looked = 0;
  let withContacts = 0;
  const sources = allSources(deps.registers);
  try {
    // Where.
    let place: NominatimPlace | null = null;
    if (found.params.where) {
      try {
        place = await within((s) => placeOf(deps, found.params.where as string, found.params.country, deps.sourceTimeoutMs, s), { ms: deps.sourceTimeoutMs, signal: controller.signal });
      } catch (error) {
        if (controller.signal.aborted) throw error;
        log.warn({ runId: id, err: messageOf(error) }, 'where not resolved');
      }
    }
    const country = found.params.country ?? countryOfPlace(place);
    summaryBase = { country, area: place?.displayName ?? null };

    // The sources, at once; leads written as each answers.
    ({ outcomes, leads } = await askSources(found, sources, { place, country }, deps, controller.signal, async (so) => {
      leads = so;
      await writer.save({ leads: so });
    }));
    if (controller.signal.aborted) throw controller.signal.reason;
    await writer.save({ leads, stage: found.params.contacts ? 'contacts' : 'sources' }, true);
    const asking = outcomes.filter((o) => !o.error?.startsWith('not asked'));
    if (asking.length > 0 && asking.every((o) => o.error !== null)) {
      return await end(writer, deps, log, 'failed', `no source answered: ${asking.map((o) => `${o.key} (${o.error})`).join('; ')}`, summaryOf(found, summaryBase, outcomes, [], sources, 0, 0), account, held);
    }

    // Contacts, from each lead's website.
    if (found.params.contacts) {
      ({ looked, found: withContacts } = await readContacts(found, leads, deps, controller.signal, log));
      if (controller.signal.aborted) throw controller.signal.reason;
      await writer.save({ leads });
    }
    const failedSources = outcomes.filter((o) => o.error && !o.error.startsWith('not asked'));
    const warning = failedSources.length ? `some sources gave nothing: ${failedSources.map((o) => `${o.key} (${o.error})`).join('; ')}` : null;
    return await end(writer, deps, log, 'completed', null, summaryOf(found, summaryBase, outcomes, leads, sources, looked, withContacts), account, held, warning, leads);
  } catch (error) {
    const ended = await endedAs(deps.state, id);
    if (ended) {
      // DELETE: keep and pay for the leads it had.
      return await end(writer, deps, log, ended.status, ended.error, summaryOf(found, summaryBase, outcomes, leads, sources, looked, withContacts), account, held, null, leads);
    }
    if (signal.aborted) {
      // The process is stopping: the event comes again (distributed mode) and the run resumes with its hold.
      log.warn({ runId: id }, 'leads run interrupted by shutdown; it resumes when its event is delivered again');
      return { kind: 'retry', code: 'service_unavailable', message: 'the leads run was interrupted' };
    }
    log.error({ runId: id, err: messageOf(error) }, 'leads run failed');
    return await end(writer, deps, log, 'failed', `internal_error: ${messageOf(error)}`, summaryOf(found, summaryBase, outcomes, [], sources, looked, withContacts), account, held);
  } finally {
    stopWatching();
    signal.removeEventListener('abort', onShutdown);
  }
}

function summaryOf(
  run: LeadsRun,
  base: Pick<RunSummary, 'country' | 'area'>,
  outcomes: readonly SourceOutcome[],
  leads: readonly Lead[],
  sources: readonly LeadSource[],
  looked: number,
  found: number,
): RunSummary {
  return {
    query: run.params.query,
    where: run.params.where,
    ...base,
    sources: outcomes,
    attribution: attributionOf(leads, sources),
    leads: leads.length,
    contacts: { looked, found },
  };
}

/**
 * Ends the run with `status` (or the status that took the latch first), charges the leads
 * delivered against the hold, and writes it `final`.
 */
async function end(
  writer: RunWriter,
  deps: LeadsDeps,
  log: Logger,
  status: EndStatus,
  error: string | null,
  summary: RunSummary | null,
  account: Awaited<ReturnType<LeadsDeps['keys']['get']>> = null,
  held = 0,
  warning: string | null = null,
  had: readonly Lead[] | null = null,
): Promise<Outcome> {
  const now = deps.now ?? Date.now;
  const run = writer.current;
  await takeEnd(deps.state, run, status, error, now());
  const ended = (await endedAs(deps.state, run.id)) ?? { status, error };
  const leads = ended.status === 'failed' ? [] : (had ?? run.leads);
  const charged = leads.length * perLead;
  let creditsUsed = 0;
  if (account && held > 0) {
    creditsUsed = account.unlimited ? charged : Math.min(charged, held);
    try {
      await deps.keys.settle(account, held, creditsUsed, { requestId: run.id, op: 'leadsStart' });
    } catch (error) {
      // The run still ends (never left running); the failed charge is logged for the operator.
      log.error({ runId: run.id, held, creditsUsed, err: messageOf(error) }, 'leads run charge not settled');
    }
  }
  const finalSummary = summary ? { ...summary, leads: leads.length, attribution: ended.status === 'failed' ? [] : summary.attribution } : null;
  await writer.save({ status: ended.status, error: ended.error, leads, summary: finalSummary, held: 0, creditsUsed, final: true, stage: 'done', warning: [run.warning, warning].filter(Boolean).join('; ') || null }, true);
  log.info({ runId: run.id, status: ended.status, leads: leads.length, creditsUsed }, 'leads run ended');
  return { kind: 'ack' };
}

/** Handles one LeadsRequested (see the file comment). */
export async function handleLeadsRequested(event: LeadsRequested, deps: LeadsDeps, signal: AbortSignal): Promise<Outcome> {
  const log = deps.log.child({ requestId: event.requestId });
  try {
    return event.kind === 'sources' ? await answerSources(event, deps, signal, log) : await carryOut(event, deps, signal, log);
  } catch (error) {
    if (signal.aborted) return { kind: 'retry', code: 'service_unavailable', message: 'the leads work was interrupted' };
    const code = errorCode(error);
    log.warn({ code, kind: event.kind }, `leads work failed: ${messageOf(error)}`);
    if (event.kind === 'sources') {
      const known = code === 'upstream_timeout' || code === 'upstream_error';
      return { kind: 'fail', code: known ? code : 'upstream_error', message: `the place could not be resolved: ${messageOf(error)}` };
    }
    return { kind: 'fail', code: 'internal_error', message: messageOf(error) };
  }
}
