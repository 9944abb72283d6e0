/**
 * The business register clients of leads (pipeline/clients/recherche-entreprises.ts,
 * companies-house.ts, brreg.ts) against local registers of the same shape
 * (test/helpers/fake-registers.ts) on 127.0.0.1, through the real HTTP stack: the questions
 * they send, the entries they read, paging to the limit, basic auth, malformed entries left
 * out, and failures as ServiceErrors.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { BrregClient } from '../../pipeline/clients/brreg.js';
import { CompaniesHouseClient } from '../../pipeline/clients/companies-house.js';
import { RechercheEntreprisesClient } from '../../pipeline/clients/recherche-entreprises.js';
import { frCompany, startFakeRegisters, type FakeRegisters } from '../helpers/fake-registers.js';
import { serviceFailure } from '../helpers/service-error.js';

const CTX = { timeoutMs: 5_000 };

const fr = Array.from({ length: 30 }, (_, i) =>
  frCompany(String(100000000 + i), `CABINET DENTAIRE ${i}`, { adresse: `${i} RUE DE LA REPUBLIQUE 69002 LYON`, numero_voie: String(i), type_voie: 'RUE', libelle_voie: 'DE LA REPUBLIQUE', code_postal: '69002', libelle_commune: 'LYON', latitude: '45.76', longitude: '4.83', activite_principale: '86.23Z' }),
);
const uk = [
  { company_number: '01234567', company_name: 'BRIGHT SMILE DENTAL LTD', company_status: 'active', sic_codes: ['86230'], registered_office_address: { address_line_1: '1 High Street', locality: 'Leeds', postal_code: 'LS1 1AA', country: 'England' } },
  { company_number: 'SC123456', company_name: 'GLASGOW DENTAL CARE LTD', company_status: 'active', sic_codes: ['86230'], registered_office_address: { address_line_1: '2 Union St', locality: 'Glasgow', postal_code: 'G1 3QP' } },
  { company_number: 'bad', company_name: 'NO NUMBER DENTAL' },
];
const no = [
  { organisasjonsnummer: '912345678', navn: 'OSLO TANNLEGESENTER AS', naeringskode1: { kode: '86.230', beskrivelse: 'Tannhelsetjenester' }, forretningsadresse: { adresse: ['Karl Johans gate 1'], postnummer: '0154', poststed: 'OSLO', landkode: 'NO' }, hjemmeside: 'www.oslotannlege.no' },
  { organisasjonsnummer: '923456789', navn: 'BERGEN TANNLEGE AS', forretningsadresse: { adresse: ['Torgallmenningen 2'], postnummer: '5014', poststed: 'BERGEN', landkode: 'NO' } },
  { organisasjonsnummer: '12', navn: 'SHORT NUMBER TANNLEGE' },
];

let fake: FakeRegisters;
beforeAll(async () => {
  fake = await startFakeRegisters({ fr, uk, no });
});
afterAll(async () => {
  await fake.close();
});
beforeEach(() => {
  fake.setMode('ok');
  fake.requests.length = 0;
});

describe('pipeline/clients/recherche-entreprises', () => {
  const client = () => new RechercheEntreprisesClient({ baseUrl: fake.url });

  it('pages /search at 25 a page up to the limit and reads SIRENE entries', async () => {
    const entries = await client().search({ what: 'dentaire', where: 'Lyon', limit: 27 }, CTX);
    expect(entries).toHaveLength(27);
    expect(fake.requests.map((r) => [r.path, r.query.get('q'), r.query.get('page'), r.query.get('per_page')])).toEqual([
      ['/search', 'dentaire Lyon', '1', '25'],
      ['/search', 'dentaire Lyon', '2', '25'],
    ]);
    expect(entries[0]).toEqual({
      id: '100000000',
      name: 'CABINET DENTAIRE 0',
      address: { street: '0 RUE DE LA REPUBLIQUE', postcode: '69002', city: 'LYON', country: 'FR' },
      formattedAddress: '0 RUE DE LA REPUBLIQUE 69002 LYON',
      phone: null,
      website: null,
      activity: { code: '86.23Z', label: null },
      status: 'active',
      coordinates: { lat: 45.76, lon: 4.83 },
      url: 'https://annuaire-entreprises.data.gouv.fr/entreprise/100000000',
    });
  });

  it('sends a five-digit where as code_postal and stops at the last page', async () => {
    const entries = await client().search({ what: 'dentaire', where: '69002', limit: 100 }, CTX);
    expect(entries).toHaveLength(30);
    expect(fake.requests.map((r) => [r.query.get('q'), r.query.get('code_postal')])).toEqual([
      ['dentaire', '69002'],
      ['dentaire', '69002'],
    ]);
  });

  it('searches by activity codes in the place when given: activite_principale, the place alone in q', async () => {
    const entries = await client().search({ what: 'dentists', where: 'Lyon', limit: 3, codes: ['86.23Z', '86.21Z'] }, CTX);
    expect(entries).toHaveLength(3);
    expect(fake.requests.map((r) => [r.query.get('q'), r.query.get('activite_principale')])).toEqual([['Lyon', '86.23Z,86.21Z']]);
    expect(await client().search({ what: 'bakers', where: 'Lyon', limit: 3, codes: ['10.71C'] }, CTX)).toEqual([]);
    fake.requests.length = 0;
    await client().search({ what: 'dentists', where: '69002', limit: 3, codes: ['86.23Z'] }, CTX);
    expect([fake.requests[0]?.query.has('q'), fake.requests[0]?.query.get('code_postal')]).toEqual([false, '69002']);
  });

  it('answers no entries when nothing matches, and a body without results is unreadable', async () => {
    expect(await client().search({ what: 'boulangerie', where: null, limit: 10 }, CTX)).toEqual([]);
    fake.setMode({ status: 200, body: '{"foo": 1}' });
    expect((await serviceFailure(client().search({ what: 'x', where: null, limit: 5 }, CTX))).kind).toBe('unreadable');
  });

  it('sorts failures: 429 rate_limited with its wait, 503 unavailable, no answer a timeout', async () => {
    fake.setMode('rate_limited');
    const limited = await serviceFailure(client().search({ what: 'x', where: null, limit: 5 }, CTX));
    expect([limited.kind, limited.retryAfterMs]).toEqual(['rate_limited', 2000]);
    fake.setMode('error');
    expect((await serviceFailure(client().search({ what: 'x', where: null, limit: 5 }, CTX))).kind).toBe('unavailable');
    fake.setMode('hang');
    expect((await serviceFailure(client().search({ what: 'x', where: null, limit: 5 }, { timeoutMs: 300 }))).kind).toBe('timeout');
  });

  it('states its source key, country and licence', () => {
    expect(client()).toMatchObject({ key: 'fr_sirene', countries: ['FR'], licence: { license: 'etalab-2.0' } });
  });
});

describe('pipeline/clients/companies-house', () => {
  it('asks the advanced search with basic auth, the key as the user', async () => {
    const client = new CompaniesHouseClient({ baseUrl: fake.url, apiKey: fake.apiKey });
    const entries = await client.search({ what: 'dental', where: 'Leeds', limit: 10 }, CTX);
    const sent = fake.requests[0];
    expect(sent?.headers.authorization).toBe(`Basic ${Buffer.from(`${fake.apiKey}:`).toString('base64')}`);
    expect([sent?.path, sent?.query.get('company_name_includes'), sent?.query.get('location'), sent?.query.get('company_status'), sent?.query.get('size')]).toEqual(['/advanced-search/companies', 'dental', 'Leeds', 'active', '10']);
    expect(entries).toEqual([
      {
        id: '01234567',
        name: 'BRIGHT SMILE DENTAL LTD',
        address: { street: '1 High Street', postcode: 'LS1 1AA', city: 'Leeds', country: 'GB' },
        formattedAddress: '1 High Street, Leeds, LS1 1AA',
        phone: null,
        website: null,
        activity: { code: '86230', label: null },
        status: 'active',
        coordinates: null,
        url: 'https://find-and-update.company-information.service.gov.uk/company/01234567',
      },
    ]);
  });

  it('searches by SIC codes instead of the name when given', async () => {
    const client = new CompaniesHouseClient({ baseUrl: fake.url, apiKey: fake.apiKey });
    const entries = await client.search({ what: 'dentists', where: 'Glasgow', limit: 10, codes: ['86230'] }, CTX);
    expect(entries.map((e) => e.id)).toEqual(['SC123456']);
    expect([fake.requests[0]?.query.get('sic_codes'), fake.requests[0]?.query.has('company_name_includes')]).toEqual(['86230', false]);
  });

  it('leaves out items without a company number, reads a 404 as no entries', async () => {
    const client = new CompaniesHouseClient({ baseUrl: fake.url, apiKey: fake.apiKey });
    expect((await client.search({ what: 'dental', where: null, limit: 10 }, CTX)).map((e) => e.id)).toEqual(['01234567', 'SC123456']);
    expect(await client.search({ what: 'bakery', where: null, limit: 10 }, CTX)).toEqual([]);
  });

  it('a refused key is rejected, and no message quotes the key', async () => {
    const client = new CompaniesHouseClient({ baseUrl: fake.url, apiKey: 'wrong-key-abcdef' });
    const error = await serviceFailure(client.search({ what: 'dental', where: null, limit: 10 }, CTX));
    expect(error.kind).toBe('rejected');
    expect(error.message).not.toContain('wrong-key-abcdef');
  });
});

describe('pipeline/clients/brreg', () => {
  const client = () => new BrregClient({ baseUrl: fake.url });

  it('asks enheter by name and post town and reads HAL entries with their website', async () => {
    const entries = await client().search({ what: 'tannlege', where: 'Oslo', limit: 10 }, CTX);
    const sent = fake.requests[0];
    expect([sent?.path, sent?.query.get('navn'), sent?.query.get('forretningsadresse.poststed'), sent?.query.get('size'), sent?.query.get('page')]).toEqual(['/enhetsregisteret/api/enheter', 'tannlege', 'OSLO', '10', '0']);
    expect(entries).toEqual([
      {
        id: '912345678',
        name: 'OSLO TANNLEGESENTER AS',
        address: { street: 'Karl Johans gate 1', postcode: '0154', city: 'OSLO', country: 'NO' },
        formattedAddress: 'Karl Johans gate 1, 0154 OSLO',
        phone: null,
        website: 'https://www.oslotannlege.no/',
        activity: { code: '86.230', label: 'Tannhelsetjenester' },
        status: 'active',
        coordinates: null,
        url: 'https://virksomhet.brreg.no/nb/oppslag/enheter/912345678',
      },
    ]);
  });

  it('searches by næringskode instead of the name when given', async () => {
    const entries = await client().search({ what: 'dentists', where: 'Oslo', limit: 10, codes: ['86.230'] }, CTX);
    expect(entries.map((e) => e.id)).toEqual(['912345678']);
    expect([fake.requests[0]?.query.get('naeringskode'), fake.requests[0]?.query.has('navn')]).toEqual(['86.230', false]);
  });

  it('leaves out malformed entries; a page without _embedded is no entries; a list body is unreadable', async () => {
    expect((await client().search({ what: 'tannlege', where: null, limit: 10 }, CTX)).map((e) => e.id)).toEqual(['912345678', '923456789']);
    expect(await client().search({ what: 'bakeri', where: null, limit: 10 }, CTX)).toEqual([]);
    fake.setMode({ status: 200, body: '[]' });
    expect((await serviceFailure(client().search({ what: 'x', where: null, limit: 5 }, CTX))).kind).toBe('unreadable');
  });

  it('reads at most 2 MiB of an answer', async () => {
    fake.setMode({ status: 200, body: JSON.stringify({ pad: 'x'.repeat(3 * 1024 * 1024) }) });
    const error = await serviceFailure(client().search({ what: 'x', where: null, limit: 5 }, CTX));
    expect([error.kind, error.message]).toEqual(['unavailable', expect.stringMatching(/could not be reached \(\w+\)/)]);
  });
});
