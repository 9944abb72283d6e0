/**
 * The searcher's Find Leads handler (actors/searcher/leads.ts) without a bus, against local
 * Nominatim, Overpass and registers, a key registry that records holds and charges, and a
 * requester standing in for the intel pool's company read:
 *
 * - a source that fails is named in the run's warning and its outcome, the others' leads kept;
 *   every asked source failing fails the run, charging nothing;
 * - a key that cannot cover the hold fails the run before any source is asked;
 * - a run found `running` (its event delivered again) resumes on the hold it had;
 * - a run whose end latch was taken before it started never starts;
 * - contacts from the company reply; a failed company read leaves the lead without;
 * - the sources question: Nominatim's failure is the caller's upstream error.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { handleLeadsRequested, type LeadsDeps } from '../../actors/searcher/leads.js';
import { NominatimClient } from '../../pipeline/clients/nominatim.js';
import { OverpassClient } from '../../pipeline/clients/overpass.js';
import type { KeyRecord } from '../../pipeline/keys/registry.js';
import { createRun, liveRun, newRunId, takeEnd, saveRun, type RunParams } from '../../pipeline/leads/record.js';
import { configuredRegisters } from '../../pipeline/leads/sources.js';
import { createLogger } from '../../pipeline/runtime/log.js';
import type { ReplyValue } from '../../pipeline/runtime/request-reply.js';
import { MemoryState } from '../../pipeline/runtime/state/memory.js';
import { loadConfig } from '../../pipeline/service/config.js';
import type { EventValue } from '../../schemas/events/index.js';
import { LYON, LYON_REGISTER, lyonElements } from '../helpers/fake-leads.js';
import { startFakeNominatim, startFakeOverpass, type FakeNominatim, type FakeOverpass } from '../helpers/fake-osm.js';
import { startFakeRegisters, type FakeRegisters } from '../helpers/fake-registers.js';

const log = createLogger('silent');
const TENANT = 'key_leads';
const account: KeyRecord = { id: TENANT, name: 'k', prefix: 'wds_', unlimited: false, revoked: false, balance: 100, createdAt: '2026-01-01T00:00:00Z' };

let nominatim: FakeNominatim;
let overpass: FakeOverpass;
let registers: FakeRegisters;
let state: MemoryState;
let rows: Record<string, unknown>[];
let holds: { reserved: number[]; settled: [number, number][]; balance: number };
let companyReplies: Map<string, ReplyValue>;
let deps: LeadsDeps;

const params = (more: Partial<RunParams> = {}): RunParams => ({ query: 'dentistes', where: 'Lyon', country: null, limit: 10, sources: ['osm', 'fr_sirene'], contacts: true, ...more });

function event(runId: string, kind: 'run' | 'sources' = 'run', query = '{}'): EventValue<'LeadsRequested'> {
  const now = Date.now();
  return { requestId: 'req-1', tenant: TENANT, kind, runId: kind === 'run' ? runId : null, query, replyTo: kind === 'sources' ? 'wds.replies' : null, correlationId: kind === 'sources' ? 'corr-1' : null, deadlineMs: now + 10_000, createdAtMs: now };
}

async function newRun(more: Partial<RunParams> = {}): Promise<string> {
  const id = newRunId();
  await createRun({ state, writer: { write: async (_t, r) => void rows.push(...r) } }, { id, tenant: TENANT, params: params(more), warning: null, nowMs: Date.now(), retentionMs: 3_600_000 });
  return id;
}

beforeAll(async () => {
  nominatim = await startFakeNominatim([LYON]);
  overpass = await startFakeOverpass(lyonElements({ dentist: 'https://dupont.example/', slow: 'https://slow.example/' }));
  registers = await startFakeRegisters({ fr: LYON_REGISTER });
});

afterAll(async () => {
  await Promise.all([nominatim, overpass, registers].map((s) => s.close()));
});

beforeEach(() => {
  state = new MemoryState();
  rows = [];
  holds = { reserved: [], settled: [], balance: 100 };
  companyReplies = new Map();
  registers.setMode('ok');
  nominatim.setMode('ok');
  const config = loadConfig({ DATA_DIR: '/tmp/unused', FR_ENTREPRISES_URL: registers.url });
  deps = {
    places: { nominatim: new NominatimClient({ baseUrl: nominatim.url, state }), overpass: new OverpassClient({ url: overpass.interpreterUrl }), state },
    registers: configuredRegisters(config),
    sourceTimeoutMs: 3_000,
    state,
    writer: { write: async (_table, r) => void rows.push(...r) },
    keys: {
      get: async (id) => (id === TENANT ? account : null),
      reserve: async (_key, credits) => {
        if (credits > holds.balance) return false;
        holds.balance -= credits;
        holds.reserved.push(credits);
        return true;
      },
      release: async () => undefined,
      settle: async (_key, reserved, actual) => {
        holds.settled.push([reserved, actual]);
        holds.balance += reserved - actual;
        return holds.balance;
      },
    },
    requester: async () => ({
      request: async (build) => {
        const emission = build('corr', 'wds.replies');
        const url = (JSON.parse((emission.value as { query: string }).query) as { url: string }).url;
        return companyReplies.get(url) ?? { requestId: 'r', correlationId: 'corr', ok: false, data: null, errorCode: 'site_unreachable', errorMessage: 'gone', credits: 0, source: 'intel' } as unknown as ReplyValue;
      },
    }),
    companyWaitMs: 2_000,
    log,
  };
});

const signal = () => new AbortController().signal;

describe('searcher: Find Leads runs', () => {
  it('completes with contacts from the company reply, charging the leads delivered against the hold', async () => {
    companyReplies.set('https://dupont.example/', { ok: true, data: JSON.stringify({ contacts: { emails: [{ email: 'contact@dupont.example' }], phones: [], contactForms: [], socialLinks: [] } }) } as unknown as ReplyValue);
    const id = await newRun();
    expect(await handleLeadsRequested(event(id), deps, signal())).toEqual({ kind: 'ack' });
    const run = await liveRun(state, id);
    expect(run).toMatchObject({ status: 'completed', final: true, creditsUsed: 3, held: 0 });
    expect(run?.leads[0]?.contacts?.emails).toEqual([{ email: 'contact@dupont.example' }]);
    expect(holds).toMatchObject({ reserved: [10], settled: [[10, 3]], balance: 97 });
    // Versions in the store: created, running, sources answered, ended.
    expect(rows.map((r) => r.status)).toEqual(['queued', 'running', 'running', 'completed']);
  });

  it('names a failing source in the warning and keeps the others\' leads; every source failing fails the run and charges nothing', async () => {
    registers.setMode('error');
    const id = await newRun({ contacts: false });
    await handleLeadsRequested(event(id), deps, signal());
    const run = await liveRun(state, id);
    expect(run?.status).toBe('completed');
    expect(run?.leads.map((l) => l.sources)).toEqual([['osm'], ['osm']]);
    expect(run?.warning).toMatch(/fr_sirene/);
    expect(run?.summary?.sources.find((s) => s.key === 'fr_sirene')?.error).toMatch(/unavailable|503/);
    expect(run?.summary?.attribution.map((a) => a.source)).toEqual(['osm']);

    const only = await newRun({ contacts: false, sources: ['fr_sirene'] });
    await handleLeadsRequested(event(only), deps, signal());
    const failed = await liveRun(state, only);
    expect(failed).toMatchObject({ status: 'failed', leads: [], creditsUsed: 0, final: true });
    expect(failed?.error).toMatch(/^no source answered: fr_sirene/);
    expect(holds.settled.at(-1)).toEqual([10, 0]);
  });

  it('asks OpenStreetMap for at most the places search\'s 100 places whatever the run\'s limit', async () => {
    holds.balance = 1000;
    const id = await newRun({ limit: 1000, contacts: false });
    await handleLeadsRequested(event(id), deps, signal());
    const run = await liveRun(state, id);
    expect(run).toMatchObject({ status: 'completed', warning: null, creditsUsed: 3 });
    expect(run?.summary?.sources).toEqual([{ key: 'osm', found: 2, error: null }, { key: 'fr_sirene', found: 2, error: null }]);
    expect(holds.settled).toEqual([[1000, 3]]);
  });

  it('fails a run whose key cannot cover the hold, before asking any source', async () => {
    holds.balance = 4;
    const id = await newRun();
    const asked = registers.requests.length;
    await handleLeadsRequested(event(id), deps, signal());
    const run = await liveRun(state, id);
    expect(run).toMatchObject({ status: 'failed', creditsUsed: 0, leads: [] });
    expect(run?.error).toMatch(/^insufficient_credits/);
    expect(registers.requests.length).toBe(asked);
    expect(holds.settled).toEqual([]);
  });

  it('resumes a run found running on the hold it had', async () => {
    const id = await newRun({ contacts: false });
    const found = await liveRun(state, id);
    await saveRun({ state, writer: deps.writer }, { ...found!, status: 'running', stage: 'sources', held: 10 }, Date.now());
    await handleLeadsRequested(event(id), deps, signal());
    expect(await liveRun(state, id)).toMatchObject({ status: 'completed', creditsUsed: 3 });
    expect(holds.reserved).toEqual([]);
    expect(holds.settled).toEqual([[10, 3]]);
  });

  it('leaves a run cancelled before it started as it was, asking nothing and holding nothing', async () => {
    const id = await newRun();
    const found = await liveRun(state, id);
    await takeEnd(state, found!, 'cancelled', null, Date.now());
    await handleLeadsRequested(event(id), deps, signal());
    expect(await liveRun(state, id)).toMatchObject({ status: 'cancelled', final: true, leads: [], creditsUsed: 0 });
    expect(holds.reserved).toEqual([]);
  });
});

describe('searcher: a run ended while its process was gone', () => {
  it('settles the hold to the leads it had written when its event comes again', async () => {
    const id = await newRun({ contacts: false });
    await handleLeadsRequested(event(id), deps, signal());
    const done = await liveRun(state, id);
    // As if the process stopped after writing two leads and holding 10, and DELETE took the latch.
    await saveRun({ state, writer: deps.writer }, { ...done!, status: 'running', stage: 'sources', final: false, held: 10, leads: done!.leads.slice(0, 2) }, Date.now());
    await state.del(`leads:${id}:end`);
    await takeEnd(state, done!, 'cancelled', null, Date.now());
    holds.settled = [];
    await handleLeadsRequested(event(id), deps, signal());
    expect(await liveRun(state, id)).toMatchObject({ status: 'cancelled', final: true, creditsUsed: 2 });
    expect(holds.settled).toEqual([[10, 2]]);
  });
});

describe('searcher: Find Leads sources', () => {
  it('answers Nominatim\'s failure as the caller\'s upstream error', async () => {
    nominatim.setMode('error');
    const outcome = await handleLeadsRequested(event('', 'sources', JSON.stringify({ where: 'Lyon' })), deps, signal());
    expect(outcome).toMatchObject({ kind: 'fail', code: 'upstream_error' });
  });

  it('answers the sources of the place\'s country', async () => {
    const outcome = await handleLeadsRequested(event('', 'sources', JSON.stringify({ where: 'Lyon' })), deps, signal());
    if (outcome.kind !== 'ack' || !outcome.emit) throw new Error('no reply');
    const reply = outcome.emit[0]?.value as ReplyValue;
    expect(JSON.parse(reply.data ?? '{}')).toMatchObject({ country: 'FR', sources: [{ key: 'osm' }, { key: 'fr_sirene' }] });
    expect(reply.credits).toBe(0);
  });
});
