/**
 * gateway/wiring.ts, the operation table: a row for every operation of the contract and
 * of the spec's endpoint index (served, or explicitly not served), prices that agree with
 * the contract's pricing, and handlers built for exactly the rows the build serves. The
 * `@ts-expect-error` lines are checked by `tsc -p tsconfig.json`: a table missing an id,
 * naming an unknown one, or pricing a metered operation free (or a free one metered) does
 * not compile.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RecordDeps } from '../../gateway/handler.js';
import {
  byPipeline,
  NOT_SERVED,
  OPERATION_TABLE,
  operationHandlers,
  type OperationRow,
  type OperationTable,
  type PipelineDeps,
} from '../../gateway/wiring.js';
import { loadConfig } from '../../pipeline/service/config.js';
import type { Requester } from '../../pipeline/runtime/request-reply.js';
import { OPERATIONS, type OperationId } from '../../schemas/api/operations.js';
import { CAPABILITIES, type Capability } from '../../schemas/capabilities.js';
import { readSpec, SPEC_PATH, specIndex } from '../schemas/spec.js';
import { bearer, testGateway, type TestGateway } from '../helpers/gateway.js';

const ROWS = Object.entries(OPERATION_TABLE) as [OperationId, OperationRow][];
const spec = readSpec();

const gatewayDeps = { config: loadConfig({ LOG_LEVEL: 'silent' }), version: '0.1.0-test' };

/** A pipeline whose actors serve `serves`; the handlers only keep the requester and job deps. */
function pipeline(serves: readonly Capability[]): PipelineDeps {
  return { serves: new Set(serves), requester: {} as Requester, records: {} as RecordDeps };
}

/** Compile-time checks of the table's type; never called. */
export function typeChecks(): void {
  const { extract: _extract, ...missing } = OPERATION_TABLE;
  // @ts-expect-error a table without a row for `extract`
  const withoutExtract: OperationTable = missing;
  // @ts-expect-error a row for an operation the contract does not have
  const extra = { ...OPERATION_TABLE, nowhere: NOT_SERVED } satisfies OperationTable;
  // @ts-expect-error map is metered in the contract: `free` is not its price
  const freeMap = { ...OPERATION_TABLE, map: byPipeline(['map'], 'free', () => ({ handle: async () => ({}) })) } satisfies OperationTable;
  // @ts-expect-error crawl status is free in the contract: it takes no estimate
  const meteredStatus = { ...OPERATION_TABLE, crawlStatus: byPipeline(['jobs'], { estimate: () => 1 }, () => ({ handle: async () => ({}) })) } satisfies OperationTable;
  // @ts-expect-error a capability no actor can serve
  const unknownNeed = byPipeline(['teleport'], 'free', () => ({ handle: async () => ({}) }));
  void [withoutExtract, extra, freeMap, meteredStatus, unknownNeed];
}

describe('gateway/wiring', () => {
  it('has one row per operation of the contract, and no other', () => {
    expect(ROWS.map(([id]) => id).sort()).toEqual(OPERATIONS.map((op) => op.id).sort());
    // The spec's 46, and PATCH /v1/monitor/{monitor_id} beyond it (test/gateway/openapi.test.ts BEYOND_SPEC).
    expect(ROWS).toHaveLength(47);
  });

  it('prices free exactly the operations the contract prices free', () => {
    for (const op of OPERATIONS) {
      const row = OPERATION_TABLE[op.id] as OperationRow;
      if (row.served === false) continue;
      expect(row.price === 'free', `${op.id} is ${op.pricing} in the contract`).toBe(op.pricing === 'free');
    }
  });

  it('serves every operation of the contract: page reading, search, monitors, mention watches, Find Leads, the social catalog, site and company intelligence and the reference operations', () => {
    const served = ROWS.filter(([, row]) => row.served !== false).map(([id]) => id);
    const monitors = ['monitorCreate', 'monitorList', 'monitorGet', 'monitorUpdate', 'monitorDelete', 'monitorRun', 'monitorChecks'];
    const mentions = ['watchCreate', 'watchList', 'watchGet', 'watchUpdate', 'watchDelete', 'watchTest', 'watchTestUnsaved', 'mentionList', 'mentionUpdate'];
    const domains = ['domain', 'domainReport', 'domainSnapshots', 'domainScreen', 'company', 'products', 'posts'];
    expect(served.sort()).toEqual(
      ['scrape', 'crawlStart', 'crawlStatus', 'crawlCancel', 'crawlPages', 'crawlErrors', 'batchStart', 'batchStatus', 'batchPages', 'map', 'extract', 'parse', 'fetch', 'search', 'serp', 'placesSearch', ...monitors, ...mentions, ...domains, 'leadsStart', 'leadsSources', 'leadsStatus', 'leadsCancel', 'socialCatalog', 'socialRun', 'templates', 'source'].sort(),
    );
    expect(ROWS.filter(([, row]) => row.served === false)).toHaveLength(0);
  });

  it('builds the handlers of the rows the build serves, each metered one with its estimate', () => {
    expect(Object.keys(operationHandlers(gatewayDeps, null)).sort()).toEqual(['source', 'templates']);
    const all = operationHandlers(gatewayDeps, pipeline(CAPABILITIES));
    expect(Object.keys(all).sort()).toEqual(ROWS.filter(([, row]) => row.served !== false).map(([id]) => id).sort());
    for (const [id, row] of ROWS) {
      if (row.served === false) continue;
      expect(typeof all[id]?.estimate, id).toBe(row.price === 'free' ? 'undefined' : 'function');
    }
    // Jobs need the frontier's `jobs` and the parser's `scrape`; map needs only the frontier's `map`.
    expect(Object.keys(operationHandlers(gatewayDeps, pipeline(['jobs', 'map']))).sort()).toEqual(['map', 'source', 'templates']);
    expect(Object.keys(operationHandlers(gatewayDeps, pipeline(['scrape']))).sort()).toEqual(['scrape', 'source', 'templates']);
    // Extract reads pages (`scrape`) and needs the extractor for what a model finishes (`extract`).
    expect(Object.keys(operationHandlers(gatewayDeps, pipeline(['scrape', 'extract']))).sort()).toEqual(['extract', 'scrape', 'source', 'templates']);
    expect(Object.keys(operationHandlers(gatewayDeps, pipeline(['jobs', 'scrape'])))).toHaveLength(2 + 1 + 8);
    // SERP and places need only the searcher; a search reads its results' pages, so it needs the parser too.
    expect(Object.keys(operationHandlers(gatewayDeps, pipeline(['search']))).sort()).toEqual(['placesSearch', 'serp', 'source', 'templates']);
    expect(Object.keys(operationHandlers(gatewayDeps, pipeline(['search', 'scrape']))).sort()).toEqual(['placesSearch', 'scrape', 'search', 'serp', 'source', 'templates']);
    // Monitors need the classifier (`monitors`), the frontier's schedules (`jobs`) and the scrape path.
    expect(Object.keys(operationHandlers(gatewayDeps, pipeline(['monitors', 'scrape']))).filter((id) => id.startsWith('monitor'))).toEqual([]);
    expect(Object.keys(operationHandlers(gatewayDeps, pipeline(['monitors', 'jobs', 'scrape']))).filter((id) => id.startsWith('monitor'))).toHaveLength(7);
    // Mention watches need the classifier (`mentions`), the searcher that collects (`search`) and the frontier's schedules (`jobs`).
    const watchOps = (caps: Parameters<typeof pipeline>[0]) => Object.keys(operationHandlers(gatewayDeps, pipeline(caps))).filter((id) => id.startsWith('watch') || id.startsWith('mention'));
    expect(watchOps(['mentions', 'jobs'])).toEqual([]);
    expect(watchOps(['mentions', 'search', 'jobs'])).toHaveLength(9);
    // The social catalog needs the searcher's `social` only.
    expect(Object.keys(operationHandlers(gatewayDeps, pipeline(['social']))).sort()).toEqual(['socialCatalog', 'socialRun', 'source', 'templates']);
    // Lookups and screens need only the intel pool; reports and snapshot loads read pages, so they need the parser too.
    const domainOps = (caps: Parameters<typeof pipeline>[0]) => Object.keys(operationHandlers(gatewayDeps, pipeline(caps))).filter((id) => id.startsWith('domain')).sort();
    expect(domainOps(['intel'])).toEqual(['domain', 'domainScreen']);
    expect(domainOps(['intel', 'scrape'])).toEqual(['domain', 'domainReport', 'domainScreen', 'domainSnapshots']);
    expect(domainOps(['scrape'])).toEqual([]);
    // Company, products and posts read the site's bytes through the fetch path: the intel pool and the fetcher.
    const siteOps = (caps: Parameters<typeof pipeline>[0]) => Object.keys(operationHandlers(gatewayDeps, pipeline(caps))).filter((id) => ['company', 'products', 'posts'].includes(id)).sort();
    expect(siteOps(['intel'])).toEqual([]);
    expect(siteOps(['intel', 'scrape'])).toEqual([]);
    expect(siteOps(['intel', 'fetch'])).toEqual(['company', 'posts', 'products']);
    // Leads sources need only the searcher's `leads`; runs read each lead's website for contacts: the intel pool and the fetcher too.
    const leadsOps = (caps: Parameters<typeof pipeline>[0]) => Object.keys(operationHandlers(gatewayDeps, pipeline(caps))).filter((id) => id.startsWith('leads')).sort();
    expect(leadsOps(['leads'])).toEqual(['leadsSources']);
    expect(leadsOps(['leads', 'intel'])).toEqual(['leadsSources']);
    expect(leadsOps(['leads', 'intel', 'fetch'])).toEqual(['leadsCancel', 'leadsSources', 'leadsStart', 'leadsStatus']);
  });

  describe.skipIf(!spec)(`against the spec's endpoint index (needs ${SPEC_PATH})`, () => {
    it('has a row, served or not, for every operation of the index', () => {
      const index = specIndex(spec ?? '');
      expect(index).toHaveLength(46);
      const byRoute = new Map(OPERATIONS.map((op) => [`${op.method} ${op.path}`, op.id]));
      const withoutRow = index.filter((route) => {
        const id = byRoute.get(route);
        return !id || !(id in OPERATION_TABLE);
      });
      expect(withoutRow, 'spec operations with no row in gateway/wiring.ts').toEqual([]);
    });
  });

  describe('an operation not served', () => {
    let gw: TestGateway;
    let key: string;
    beforeAll(async () => {
      gw = await testGateway({ RATE_LIMIT_PER_MINUTE: '0' });
      key = await gw.key();
    });
    afterAll(() => gw.close());

    it('answers 501 not_implemented', async () => {
      const res = await gw.app.inject({ method: 'GET', url: '/v1/mentions', headers: bearer(key) });
      expect(res.statusCode).toBe(501);
      expect(res.json()).toMatchObject({ success: false, error: { code: 'not_implemented', message: 'GET /v1/mentions is not served by this instance yet' } });
    });
  });
});
