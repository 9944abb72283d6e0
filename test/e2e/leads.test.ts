/**
 * Find Leads end to end (issue 31), embedded mode with the production actors: the gateway,
 * the searcher carrying runs out against the local Nominatim and Overpass (Lyon's dentists
 * and a pharmacy, test/helpers/fake-leads.ts) and local business registers
 * (test/helpers/fake-registers.ts: France, the UK with its key, Norway), the intel pool
 * reading each lead's website for contacts through the fetch path (local sites).
 *
 * - GET /v1/leads/sources by country and by place, `country: null` for an unknown place; free;
 * - a run: queued → running (partial leads without contacts) → completed, OSM and the
 *   register merged with each field's source, contacts from the website, attribution of both
 *   licences, charged per lead delivered against the hold;
 * - cancel: during enrichment (stops within seconds, keeps and pays its leads), while
 *   queued (never starts, costs nothing), after the end (unchanged);
 * - a key that cannot pay is refused 402 before the run exists; another key's run is 404;
 * - unknown fields are accepted and named in `warning`; bad input is 422;
 * - a restart while a run is running: the run resumes (STATE=file keeps its state) and ends, charged once.
 */
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiCaller, type ApiAnswer } from '../helpers/api.js';
import { meteredKey, serveEmbedded, startEmbedded, type Embedded } from '../helpers/embedded.js';
import { startFakeNominatim, startFakeOverpass, type FakeNominatim, type FakeOverpass } from '../helpers/fake-osm.js';
import { startFakeRegisters, type FakeRegisters } from '../helpers/fake-registers.js';
import { LYON, LYON_REGISTER, lyonElements } from '../helpers/fake-leads.js';
import { frenchMicrodata } from '../helpers/fake-sites/company.js';
import { page, html, startFakeSite, type FakeSite } from '../helpers/fake-sites/server.js';
import { until } from '../helpers/wait.js';
import { loadConfig } from '../../pipeline/service/config.js';
import { PRICES } from '../../schemas/api/prices.js';

const API_KEY = 'e2e-leads-key-0123456789abc';
const dentistSite = frenchMicrodata();

let svc: Embedded;
let base = '';
let nominatim: FakeNominatim;
let overpass: FakeOverpass;
let registers: FakeRegisters;
let dentist: FakeSite;
let slow: FakeSite;
let metered: { key: string; balance: () => Promise<number | null> };
let poor: { key: string; balance: () => Promise<number | null> };
const call = apiCaller(() => base, API_KEY, 60_000);
let env: Record<string, string> = {};

const run = (id: string, key = API_KEY) => call('GET', `/v1/leads/${id}`, undefined, key);

async function start(body: Record<string, unknown>, key = API_KEY): Promise<string> {
  const res = await call('POST', '/v1/leads', body, key);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data.id as string;
}

async function ended(id: string, key = API_KEY): Promise<ApiAnswer['body']> {
  return until(`run ${id} ended`, async () => {
    const res = await run(id, key);
    return res.body.data?.status !== 'queued' && res.body.data?.status !== 'running' && res.body.data?.partial === false ? res.body.data : null;
  }, 30_000);
}

beforeAll(async () => {
  dentist = await startFakeSite(dentistSite.routes);
  // A pharmacy whose website answers after 25 s: its run is still reading it when cancelled.
  slow = await startFakeSite((path) => (path === '/' ? { ...html(page('Pharmacie', '<p>Bonjour</p>')), delayMs: 25_000 } : null));
  nominatim = await startFakeNominatim([LYON]);
  overpass = await startFakeOverpass(lyonElements({ dentist: dentist.origin, slow: slow.origin }));
  registers = await startFakeRegisters({ fr: LYON_REGISTER, uk: [], no: [] });
  env = {
    FETCH_ALLOW_PRIVATE: 'true',
    NOMINATIM_URL: nominatim.url,
    OVERPASS_URL: overpass.interpreterUrl,
    FR_ENTREPRISES_URL: registers.url,
    UK_COMPANIES_HOUSE_URL: registers.url,
    UK_COMPANIES_HOUSE_API_KEY: registers.apiKey,
    NO_BRREG_URL: registers.url,
    SITE_PAGE_TIMEOUT_MS: '20000',
    SITE_READ_BUDGET_MS: '30000',
    // Two runs at once per pool: a third waits queued.
    POOL_CONCURRENCY: '2',
    // The tests poll runs every 20 ms (two at once while both are busy): far past the default
    // 600 a minute after its burst of 100 when runs start slowly, and a 429 then fails every test
    // after it. Rate limiting is tested in its own suites.
    RATE_LIMIT_PER_MINUTE: '12000',
    RATE_LIMIT_BURST: '1000',
  };
  svc = await startEmbedded({
    apiKey: API_KEY,
    env,
    before: async (config) => {
      metered = await meteredKey(config.dataDir, 500);
      poor = await meteredKey(config.dataDir, 5);
    },
  });
  base = svc.base;
}, 120_000);

afterAll(async () => {
  await svc?.stop();
  await Promise.all([dentist, slow, nominatim, overpass, registers].map((s) => s?.close()));
});

describe('e2e/leads: GET /v1/leads/sources', () => {
  it('lists the sources covering a country, OpenStreetMap everywhere and each configured register for its own', async () => {
    const fr = await call('GET', '/v1/leads/sources?country=FR');
    expect(fr.status, JSON.stringify(fr.body)).toBe(200);
    expect(fr.body.data.country).toBe('FR');
    expect(fr.body.data.sources.map((s: { key: string }) => s.key)).toEqual(['osm', 'fr_sirene']);
    expect(fr.body.data.sources[0]).toEqual({ key: 'osm', label: expect.any(String), countries: ['*'] });
    expect(fr.body.data.sources[1]).toEqual({ key: 'fr_sirene', label: expect.any(String), countries: ['FR'] });
    expect((await call('GET', '/v1/leads/sources?country=gb')).body.data.sources.map((s: { key: string }) => s.key)).toEqual(['osm', 'uk_companies_house']);
    expect((await call('GET', '/v1/leads/sources?country=US')).body.data.sources.map((s: { key: string }) => s.key)).toEqual(['osm']);
    expect(fr.body.data.cost.credits).toBe(0);
  });

  it('resolves `where` to its country, and answers country null (every source) for a place nobody knows', async () => {
    const lyon = await call('GET', '/v1/leads/sources?where=Lyon');
    expect(lyon.body.data).toMatchObject({ country: 'FR', where: 'Lyon', area: expect.stringContaining('Lyon') });
    expect(lyon.body.data.sources.map((s: { key: string }) => s.key)).toEqual(['osm', 'fr_sirene']);
    const nowhere = await call('GET', '/v1/leads/sources?where=Atlantis');
    expect(nowhere.status).toBe(200);
    expect(nowhere.body.data.country).toBeNull();
    expect(nowhere.body.data.sources.map((s: { key: string }) => s.key)).toEqual(['osm', 'fr_sirene', 'uk_companies_house', 'no_brreg']);
    expect((await call('GET', '/v1/leads/sources?country=FRA')).status).toBe(422);
  });
});

describe('e2e/leads: a run', () => {
  it('runs queued → running → completed: OSM and the register merged with each field\'s source, contacts from the website, both licences attributed, charged per lead', async () => {
    const before = await metered.balance();
    const id = await start({ query: 'dentistes', where: 'Lyon', limit: 10 }, metered.key);
    expect(id).toMatch(/^leads_[0-9a-f]{32}$/);
    const done = await ended(id, metered.key);
    expect(done).toMatchObject({ id, status: 'completed', stage: 'done', partial: false, country: 'FR' });
    const names = done.leads.map((l: { name: string }) => l.name);
    expect(names).toEqual(['Cabinet des Dentistes Dupont', 'Centre Dentaire Guillotière', 'SELARL DES DENTISTES MARTIN']);
    const dupont = done.leads[0];
    expect(dupont.sources).toEqual(['osm', 'fr_sirene']);
    expect(dupont.fieldSources).toEqual({ name: 'osm', address: 'fr_sirene', phone: 'osm', website: 'osm' });
    expect(dupont.address).toMatchObject({ postcode: '69002', city: 'LYON' });
    expect(dupont.refs.map((r: { source: string; id: string }) => `${r.source}:${r.id}`)).toEqual(['osm:node/9001', 'fr_sirene:812345678']);
    expect(dupont.licenses).toEqual(['ODbL-1.0', 'etalab-2.0']);
    expect(dupont.contacts.emails.map((e: { email: string }) => e.email).sort()).toEqual([...dentistSite.truth.emails].sort());
    expect(done.leads[1].contacts).toBeNull();
    expect(done.summary.attribution.map((a: { source: string; license: string }) => [a.source, a.license])).toEqual([
      ['osm', 'ODbL-1.0'],
      ['fr_sirene', 'etalab-2.0'],
    ]);
    expect(done.summary.attribution[0].text).toContain('OpenStreetMap');
    expect(done.summary.sources).toEqual([
      { key: 'osm', found: 2, error: null },
      { key: 'fr_sirene', found: 2, error: null },
      { key: 'uk_companies_house', found: 0, error: expect.stringContaining('not asked') },
      { key: 'no_brreg', found: 0, error: expect.stringContaining('not asked') },
    ]);
    expect(done.summary.contacts).toEqual({ looked: 1, found: 1 });
    expect(done.creditsUsed).toBe(3);
    expect(await metered.balance()).toBe((before as number) - 3);
    // The register was asked for dentists (NAF 86.23Z) in the place's name.
    expect(registers.requests.some((r) => r.path === '/search' && r.query.get('q') === 'Lyon' && r.query.get('activite_principale') === '86.23Z')).toBe(true);
    // Finished: DELETE changes nothing and costs nothing.
    const again = await call('DELETE', `/v1/leads/${id}`, undefined, metered.key);
    expect(again.status).toBe(200);
    expect(again.body.data).toMatchObject({ status: 'completed', creditsUsed: 3 });
    expect(await metered.balance()).toBe((before as number) - 3);
  });

  it('shows partial leads without contacts while running; DELETE during enrichment stops it within seconds, keeping and charging its leads', async () => {
    const before = await metered.balance();
    const id = await start({ query: 'pharmacies', where: 'Lyon', limit: 20 }, metered.key);
    const running = await until('enriching', async () => {
      const res = await run(id, metered.key);
      return res.body.data?.stage === 'contacts' ? res.body.data : null;
    }, 20_000);
    expect(running).toMatchObject({ status: 'running', partial: true, summary: null });
    expect(running.leads.map((l: { name: string; contacts: unknown }) => [l.name, l.contacts])).toEqual([['Pharmacie des Terreaux', null]]);
    // While it holds `limit` leads, the balance shows the hold.
    const cancelled = await call('DELETE', `/v1/leads/${id}`, undefined, metered.key);
    expect(cancelled.status).toBe(200);
    // The answer is the run's final record: the searcher saw the latch, stopped reading the
    // website (it answers after 25 s) and wrote it while DELETE waited (at most CANCEL_WAIT_MS,
    // then it answers the live, partial run).
    expect(cancelled.body.data).toMatchObject({ id, status: 'cancelled', stage: 'done', partial: false });
    expect(cancelled.body.data.leads.map((l: { name: string }) => l.name)).toEqual(['Pharmacie des Terreaux']);
    expect(cancelled.body.data.creditsUsed).toBe(1);
    expect(cancelled.body.data.summary.attribution.map((a: { license: string }) => a.license)).toEqual(['ODbL-1.0']);
    expect(await metered.balance()).toBe((before as number) - 1);
    // Cancelled again: unchanged.
    expect((await call('DELETE', `/v1/leads/${id}`, undefined, metered.key)).body.data).toMatchObject({ status: 'cancelled', creditsUsed: 1 });
  });

  it('a queued run cancelled never starts and costs nothing', async () => {
    const before = await metered.balance();
    // Two runs reading the slow website hold the searcher's two slots: the next waits queued.
    // A partition carries one run at a time, and two runs' ids land on the same one of the 12
    // about once in 12: such a run waits behind the other, so runs are added until two run at once.
    const busy = [await start({ query: 'pharmacies', where: 'Lyon', limit: 5 }), await start({ query: 'pharmacies', where: 'Lyon', limit: 5 })];
    let added = Date.now();
    await until('both slots busy', async () => {
      const running = (await Promise.all(busy.map((b) => run(b)))).filter((r) => r.body.data.status === 'running').length;
      if (running >= 2) return true;
      if (Date.now() - added > 2_000 && busy.length < 6) {
        busy.push(await start({ query: 'pharmacies', where: 'Lyon', limit: 5 }));
        added = Date.now();
      }
      return false;
    }, 30_000);
    const queued = await start({ query: 'dentistes', where: 'Lyon', limit: 10 }, metered.key);
    expect((await run(queued, metered.key)).body.data).toMatchObject({ status: 'queued', partial: false, leads: [] });
    const cancelled = await call('DELETE', `/v1/leads/${queued}`, undefined, metered.key);
    expect(cancelled.body.data).toMatchObject({ status: 'cancelled', stage: 'done', leads: [], creditsUsed: 0 });
    for (const b of busy) await call('DELETE', `/v1/leads/${b}`);
    // Once a slot is free the searcher takes the cancelled run's event and leaves it as it was.
    await new Promise((r) => setTimeout(r, 1_000));
    expect((await run(queued, metered.key)).body.data).toMatchObject({ status: 'cancelled', leads: [], creditsUsed: 0 });
    expect(await metered.balance()).toBe(before);
  });

  it('refuses a key that cannot pay for `limit` leads before the run exists (402)', async () => {
    const refused = await call('POST', '/v1/leads', { query: 'dentistes', where: 'Lyon', limit: 10 }, poor.key);
    expect(refused.status).toBe(402);
    expect(refused.body.error.code).toBe('insufficient_credits');
    expect(await poor.balance()).toBe(5);
  });

  it('another key\'s run is 404, read or cancelled', async () => {
    const id = await start({ query: 'dentistes', where: 'Lyon', limit: 5, contacts: false }, metered.key);
    expect((await run(id)).status).toBe(404);
    expect((await call('DELETE', `/v1/leads/${id}`)).status).toBe(404);
    expect((await run('leads_00000000000000000000000000000000')).status).toBe(404);
    expect((await run('crawl_x')).status).toBe(404);
    expect((await ended(id, metered.key)).status).toBe('completed');
  });

  it('accepts fields it does not know and names them in `warning`', async () => {
    const res = await call('POST', '/v1/leads', { query: 'dentistes', where: 'Lyon', limit: 5, contacts: false, radius: 5, industry: 'health' });
    expect(res.status).toBe(200);
    expect(res.body.data.warning).toBe('fields this API does not know were ignored: industry, radius');
    const done = await ended(res.body.data.id);
    expect(done.warning).toContain('industry, radius');
  });

  it.each([
    [{ where: 'Lyon' }, 'query'],
    [{ query: 'dentistes' }, 'where'],
    [{ query: 'dentistes', where: 'Lyon', limit: 0 }, 'limit'],
    [{ query: 'dentistes', where: 'Lyon', sources: ['yellow_pages'] }, 'sources'],
    [{ query: 'dentistes', country: 'France' }, 'country'],
  ])('refuses %j with 422, nothing created or charged', async (body, field) => {
    const res = await call('POST', '/v1/leads', body);
    expect(res.status, JSON.stringify(res.body)).toBe(422);
    expect(res.body.detail[0].loc).toContain(field);
  });
});

describe('e2e/leads: a restart', () => {
  it('a run running when the service stops resumes after the restart and ends, charged once for its leads', async () => {
    const id = await start({ query: 'pharmacies', where: 'Lyon', limit: 5 }, metered.key);
    await until('running', async () => (await run(id, metered.key)).body.data?.stage === 'contacts', 20_000);
    const before = await metered.balance();
    await svc.service.stop();
    const config = loadConfig({ DATA_DIR: svc.dataDir, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'silent', API_KEY, ...env });
    const restarted = await serveEmbedded(config);
    base = restarted.base;
    const dataDir = svc.dataDir;
    svc = {
      ...svc,
      service: restarted.service,
      base,
      async stop() {
        await restarted.service.stop();
        rmSync(dataDir, { recursive: true, force: true });
      },
    };
    // The state outlived the process (STATE=file, the embedded default): the run is asked again
    // and resumes with its hold, never answered running for ever, and is charged once.
    expect((await run(id, metered.key)).body.data.status).toMatch(/^(queued|running|completed)$/);
    const answer = await until(
      `run ${id} resumed and ended`,
      async () => {
        const data = (await run(id, metered.key)).body.data;
        return data?.status !== 'queued' && data?.status !== 'running' && data?.partial === false ? data : null;
      },
      60_000,
    );
    expect(answer).toMatchObject({ status: 'completed', partial: false });
    expect(answer.leads.length).toBeGreaterThan(0);
    expect(answer.creditsUsed).toBe(answer.leads.length * PRICES.lead.credits);
    expect(await metered.balance()).toBe((before as number) - answer.creditsUsed);
  }, 120_000);
});
