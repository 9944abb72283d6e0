/**
 * Find Leads in the distributed shape: `main.ts --role gateway` and `searcher` on librdkafka's
 * mock Kafka, Redis and a ClickHouse server, with Nominatim, Overpass and the French register
 * as stand-ins on 127.0.0.1 (test/helpers/fake-leads.ts).
 *
 * - GET /v1/leads/sources resolves a place in the searcher process;
 * - a run travels as LeadsRequested on wds.leads.requested to the searcher, which writes it in
 *   Redis and the store: completed, OSM and the register merged, both licences attributed,
 *   charged per lead on a metered key;
 * - DELETE while a source hangs: the searcher sees the latch in Redis and stops within
 *   seconds, keeping and charging the leads it had;
 * - another key's run is 404.
 * The embedded counterpart (every state transition, enrichment, restart) is test/e2e/leads.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chdbAvailable } from '../helpers/clickhouse.js';
import { PRODUCTION_MAIN, startCluster, type Cluster } from '../helpers/cluster.js';
import { engine } from '../helpers/engines.js';
import { LYON, LYON_REGISTER, lyonElements } from '../helpers/fake-leads.js';
import { startFakeNominatim, startFakeOverpass, type FakeNominatim, type FakeOverpass } from '../helpers/fake-osm.js';
import { startFakeRegisters, type FakeRegisters } from '../helpers/fake-registers.js';
import { hasKafka } from '../helpers/kafka.js';
import { REDIS_INSTALL, redisProbe } from '../helpers/redis.js';
import { until } from '../helpers/wait.js';
import { apiCaller, type Body } from '../helpers/api.js';

const hasChdb = await chdbAvailable();
const kafkaUp = await hasKafka();
const redisUp = await engine('redis', () => redisProbe(), REDIS_INSTALL);

/** A run takes a few seconds, but one consumer-group rebalance of the mock stalls ~29 s. */
const WAIT = { timeoutMs: 120_000, intervalMs: 500 };

describe.skipIf(!hasChdb || !kafkaUp || !redisUp)('e2e/leads distributed (a gateway and a searcher on Kafka)', () => {
  let cluster: Cluster;
  let base: string;
  let nominatim: FakeNominatim;
  let overpass: FakeOverpass;
  let registers: FakeRegisters;
  let metered = '';
  let balance: () => Promise<number | null>;

  const call = apiCaller(() => base, '', WAIT.timeoutMs);
  const callAs = (method: string, path: string, body?: unknown, key?: string) => call(method, path, body, key ?? cluster.apiKey);
  const ended = (id: string, key: string) =>
    until(`run ${id} ended`, async () => {
      const data = (await callAs('GET', `/v1/leads/${id}`, undefined, key)).body.data as Body | undefined;
      return data && data.partial === false && data.status !== 'queued' ? data : null;
    }, WAIT);

  beforeAll(async () => {
    [nominatim, overpass, registers] = await Promise.all([
      startFakeNominatim([LYON]),
      startFakeOverpass(lyonElements({ dentist: 'https://dupont-dentistes.example/', slow: 'https://pharmacie.example/' })),
      startFakeRegisters({ fr: LYON_REGISTER }),
    ]);
    cluster = await startCluster({
      main: PRODUCTION_MAIN,
      env: { NOMINATIM_URL: nominatim.url, OVERPASS_URL: overpass.interpreterUrl, FR_ENTREPRISES_URL: registers.url, LEADS_SOURCE_TIMEOUT_MS: '60000' },
    });
    const [gateway] = await Promise.all([cluster.service('gateway'), cluster.service('searcher')]);
    base = gateway.url as string;
    const keys = await cluster.keys();
    const made = await keys.create({ name: 'leads-metered', credits: 100 });
    metered = made.key;
    balance = async () => (await keys.get(made.record.id))?.balance ?? null;
    // The first answer absorbs a consumer-group rebalance still pending after start-up.
    await until('a first sources answer', async () => (await callAs('GET', '/v1/leads/sources?country=FR')).status === 200, WAIT);
  }, 240_000);

  afterAll(async () => {
    await cluster?.stop();
    await Promise.all([nominatim?.close(), overpass?.close(), registers?.close()]);
  }, 60_000);

  it('resolves a place to its country in the searcher process', async () => {
    const res = await callAs('GET', '/v1/leads/sources?where=Lyon');
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data).toMatchObject({ country: 'FR', sources: [{ key: 'osm', countries: ['*'] }, { key: 'fr_sirene', countries: ['FR'] }] });
  }, 60_000);

  it('carries a run out in the searcher: merged, attributed, charged per lead; another key sees 404', async () => {
    const before = await balance();
    const start = await callAs('POST', '/v1/leads', { query: 'dentistes', where: 'Lyon', limit: 10, contacts: false }, metered);
    expect(start.status, JSON.stringify(start.body)).toBe(200);
    const id = start.body.data.id as string;
    const done = await ended(id, metered);
    expect(done.status).toBe('completed');
    expect(done.leads.map((l: Body) => [l.name, l.sources])).toEqual([
      ['Cabinet des Dentistes Dupont', ['osm', 'fr_sirene']],
      ['Centre Dentaire Guillotière', ['osm']],
      ['SELARL DES DENTISTES MARTIN', ['fr_sirene']],
    ]);
    expect(done.leads[0].fieldSources).toEqual({ name: 'osm', address: 'fr_sirene', phone: 'osm', website: 'osm' });
    expect(done.summary.attribution.map((a: Body) => a.license)).toEqual(['ODbL-1.0', 'etalab-2.0']);
    expect(done.creditsUsed).toBe(3);
    expect(await balance()).toBe((before as number) - 3);
    expect((await callAs('GET', `/v1/leads/${id}`)).status).toBe(404);
    expect((await callAs('DELETE', `/v1/leads/${id}`)).status).toBe(404);
    // The searcher process carried it (its line is written just after the final record).
    const searcher = cluster.processes.find((p) => p.role === 'searcher');
    await until('the searcher\'s line', () => searcher?.logLines().some((l) => l.msg === 'leads run ended' && l.runId === id && l.status === 'completed'), 10_000);
  }, 120_000);

  it('cancels a run whose register hangs within seconds, keeping and charging the leads it had', async () => {
    registers.setMode('hang');
    try {
      const before = await balance();
      const id = (await callAs('POST', '/v1/leads', { query: 'dentistes', where: 'Lyon', limit: 10, contacts: false }, metered)).body.data.id as string;
      await until('OpenStreetMap\'s leads shown', async () => ((await callAs('GET', `/v1/leads/${id}`, undefined, metered)).body.data?.leads?.length ?? 0) === 2, WAIT);
      const running = (await callAs('GET', `/v1/leads/${id}`, undefined, metered)).body.data;
      expect(running).toMatchObject({ status: 'running', partial: true, stage: 'sources' });
      const cancelled = await callAs('DELETE', `/v1/leads/${id}`, undefined, metered);
      // The answer is the run's final record: the searcher saw the latch, stopped and wrote it
      // while DELETE waited (at most CANCEL_WAIT_MS, then it answers the live, partial run).
      expect(cancelled.body.data).toMatchObject({ status: 'cancelled', partial: false, stage: 'done', creditsUsed: 2 });
      expect(cancelled.body.data.leads.map((l: Body) => l.sources)).toEqual([['osm'], ['osm']]);
      // Stopped by the cancel, not by the register's time (LEADS_SOURCE_TIMEOUT_MS, 60 s): the
      // hanging register has no outcome at all, neither leads nor a timeout.
      expect(cancelled.body.data.summary.sources).toEqual([{ key: 'osm', found: 2, error: null }]);
      expect(await balance()).toBe((before as number) - 2);
    } finally {
      registers.setMode('ok');
    }
  }, 120_000);
});
