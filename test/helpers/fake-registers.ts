/**
 * Local open business registers (/work/shared/design/reference-shapes-wave3.md §3) on one
 * node:http server on 127.0.0.1, for the leads sources (pipeline/clients/recherche-entreprises.ts,
 * companies-house.ts, brreg.ts; point FR_ENTREPRISES_URL, UK_COMPANIES_HOUSE_URL and
 * NO_BRREG_URL at `url`):
 *
 * - `GET /search?q=&code_postal=&activite_principale=&page=&per_page=` (France): the companies
 *   whose every word of `q` is in their name or address (case-insensitive) and whose head
 *   office's NAF code is one of `activite_principale` (comma-separated), paged, as `{results,
 *   total_results, page, per_page, total_pages}`; `per_page` above 25 is a 400, and a request
 *   with neither `q` nor a filter a 400, as the real API answers.
 * - `GET /advanced-search/companies?company_name_includes=&sic_codes=&location=&size=&start_index=`
 *   (UK): needs `Authorization: Basic base64(<key>:)` with the fake's key (else 401); the
 *   companies whose name includes the words, with one of the SIC codes, whose office address
 *   includes the location, as `{items, hits, kind}`; none is a 404, as the real API answers.
 * - `GET /enhetsregisteret/api/enheter?navn=&naeringskode=&forretningsadresse.poststed=&page=&size=`
 *   (Norway): HAL `{_embedded: {enheter}, page: {size, totalElements, totalPages, number}}`,
 *   without `_embedded` when nothing matches.
 * - Modes (`setMode`): `ok`, `rate_limited` (429 with Retry-After: 2), `error` (503), `hang`,
 *   or an exact answer. Every request is recorded.
 */
import type http from 'node:http';
import { startStandIn, type StandInAnswer, type StandInReply } from './stand-in.js';

export interface FakeRegisterRequest {
  readonly path: string;
  readonly query: URLSearchParams;
  readonly headers: http.IncomingHttpHeaders;
}

export type FakeRegisterMode = 'ok' | 'rate_limited' | 'error' | 'hang' | StandInAnswer;

export interface FakeRegisters {
  readonly url: string;
  readonly apiKey: string;
  readonly requests: FakeRegisterRequest[];
  setMode(mode: FakeRegisterMode): void;
  close(): Promise<void>;
}

export interface RegisterData {
  readonly fr?: readonly Record<string, unknown>[];
  readonly uk?: readonly Record<string, unknown>[];
  readonly no?: readonly Record<string, unknown>[];
}

const json = (status: number, body: unknown): StandInAnswer => ({ status, body: JSON.stringify(body), headers: { 'content-type': 'application/json' } });
const words = (s: string | null) => (s ?? '').toLowerCase().split(/\s+/).filter(Boolean);
const has = (hay: unknown, needle: string) => JSON.stringify(hay ?? '').toLowerCase().includes(needle);

export const FAKE_CH_KEY = 'ch-test-key-0123456789';

/** A French company in the API's shape. */
export function frCompany(siren: string, name: string, siege: Record<string, unknown>): Record<string, unknown> {
  return { siren, nom_complet: name, nom_raison_sociale: name, nature_juridique: '5499', siege: { siret: `${siren}00011`, etat_administratif: 'A', ...siege } };
}

export async function startFakeRegisters(data: RegisterData, apiKey = FAKE_CH_KEY): Promise<FakeRegisters> {
  const read = (req: http.IncomingMessage, url: URL): FakeRegisterRequest => ({ path: url.pathname, query: url.searchParams, headers: req.headers });
  const route = (request: FakeRegisterRequest, mode: FakeRegisterMode): StandInReply => {
    if (mode === 'hang') return 'hang';
    if (mode === 'rate_limited') return { status: 429, body: '{"erreur":"Too many requests"}', headers: { 'content-type': 'application/json', 'retry-after': '2' } };
    if (mode === 'error') return { status: 503, body: '<html>unavailable</html>', headers: { 'content-type': 'text/html' } };
    if (mode !== 'ok') return mode;
    const q = request.query;
    if (request.path === '/search') {
      const perPage = Number(q.get('per_page') ?? 10);
      if (perPage > 25) return json(400, { erreur: 'per_page must be at most 25' });
      const page = Number(q.get('page') ?? 1);
      const postcode = q.get('code_postal');
      const naf = q.get('activite_principale')?.split(',') ?? null;
      if (!q.get('q') && !postcode && !naf) return json(400, { erreur: 'Veuillez indiquer au moins un paramètre de recherche.' });
      const siege = (c: Record<string, unknown>) => (c.siege ?? {}) as Record<string, unknown>;
      const matched = (data.fr ?? []).filter(
        (c) => words(q.get('q')).every((w) => has(c.nom_complet, w) || has(siege(c).adresse, w)) && (!postcode || siege(c).code_postal === postcode) && (!naf || naf.includes(String(siege(c).activite_principale))),
      );
      return json(200, { results: matched.slice((page - 1) * perPage, page * perPage), total_results: matched.length, page, per_page: perPage, total_pages: Math.max(1, Math.ceil(matched.length / perPage)) });
    }
    if (request.path === '/advanced-search/companies') {
      if (request.headers.authorization !== `Basic ${Buffer.from(`${apiKey}:`).toString('base64')}`) return json(401, { error: 'Invalid Authorization', type: 'ch:service' });
      const size = Number(q.get('size') ?? 20);
      const start = Number(q.get('start_index') ?? 0);
      const location = (q.get('location') ?? '').toLowerCase();
      const sic = q.get('sic_codes')?.split(',') ?? null;
      const matched = (data.uk ?? []).filter(
        (c) => words(q.get('company_name_includes')).every((w) => has(c.company_name, w)) && (!location || has(c.registered_office_address, location)) && (!sic || (Array.isArray(c.sic_codes) && c.sic_codes.some((code) => sic.includes(String(code))))),
      );
      if (!matched.length) return json(404, { hits: 0, items: [], kind: 'search#advanced-search', top_hit: {} });
      return json(200, { hits: matched.length, items: matched.slice(start, start + size), kind: 'search#advanced-search' });
    }
    if (request.path === '/enhetsregisteret/api/enheter') {
      const size = Number(q.get('size') ?? 20);
      const page = Number(q.get('page') ?? 0);
      const town = q.get('forretningsadresse.poststed');
      const nace = q.get('naeringskode')?.split(',') ?? null;
      const matched = (data.no ?? []).filter(
        (c) => words(q.get('navn')).every((w) => has(c.navn, w)) && (!town || (c.forretningsadresse as Record<string, unknown>)?.poststed === town) && (!nace || nace.includes(String((c.naeringskode1 as Record<string, unknown> | undefined)?.kode))),
      );
      const pageInfo = { size, totalElements: matched.length, totalPages: Math.ceil(matched.length / size), number: page };
      const items = matched.slice(page * size, (page + 1) * size);
      return json(200, items.length ? { _embedded: { enheter: items }, page: pageInfo } : { page: pageInfo });
    }
    return json(404, { error: 'not found' });
  };
  const { base, ...rest } = await startStandIn<FakeRegisterMode, FakeRegisterRequest>('ok', read, route);
  return { url: base, apiKey, ...rest };
}
