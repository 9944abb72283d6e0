/**
 * pipeline/leads/leads.ts: leads from OpenStreetMap places and register entries, merged into
 * one lead per business with each field's source kept, and a run's attribution.
 */
import { describe, expect, it } from 'vitest';
import type { RegisterEntry } from '../../pipeline/clients/business-register.js';
import { attributionOf, fromEntry, fromPlace, mergeLeads, nameKey, phoneKey, websiteKey, type Lead } from '../../pipeline/leads/leads.js';
import { allSources, configuredRegisters, OSM, OSM_LICENCE, sourcesFor } from '../../pipeline/leads/sources.js';
import { loadConfig } from '../../pipeline/service/config.js';
import type { Place } from '../../pipeline/search/places.js';
import { RechercheEntreprisesClient } from '../../pipeline/clients/recherche-entreprises.js';
import { BrregClient } from '../../pipeline/clients/brreg.js';
import { CompaniesHouseClient } from '../../pipeline/clients/companies-house.js';

const fr = new RechercheEntreprisesClient({ baseUrl: 'http://127.0.0.1:9' });
const no = new BrregClient({ baseUrl: 'http://127.0.0.1:9' });
const uk = new CompaniesHouseClient({ baseUrl: 'http://127.0.0.1:9', apiKey: 'k' });
const SOURCES = allSources([fr, uk, no]);

function place(id: number, name: string, more: Partial<Place> = {}, address: Partial<Place['address']> = {}): Place {
  return {
    name,
    category: 'dentist',
    kind: 'amenity',
    address: { street: null, housenumber: null, postcode: null, city: null, state: null, country: null, ...address },
    formattedAddress: null,
    coordinates: { lat: 45.76, lon: 4.83 },
    phone: null,
    website: null,
    email: null,
    openingHours: null,
    cuisine: null,
    brand: null,
    wheelchair: null,
    osm: { type: 'node', id },
    osmUrl: `https://www.openstreetmap.org/node/${id}`,
    ...more,
  };
}

function entry(id: string, name: string, more: Partial<RegisterEntry> = {}, address: Partial<RegisterEntry['address']> = {}): RegisterEntry {
  return {
    id,
    name,
    address: { street: null, postcode: null, city: null, country: 'FR', ...address },
    formattedAddress: null,
    phone: null,
    website: null,
    activity: { code: '86.23Z', label: null },
    status: 'active',
    coordinates: null,
    url: `https://annuaire-entreprises.data.gouv.fr/entreprise/${id}`,
    ...more,
  };
}

const osm = (p: Place): Lead => fromPlace(p, OSM_LICENCE);
const sirene = (e: RegisterEntry): Lead => fromEntry({ key: fr.key, licence: fr.licence }, e);

describe('pipeline/leads: keys of one business', () => {
  it('reads names without case, accents, punctuation or legal forms', () => {
    expect(nameKey('CABINET DES DENTISTES DUPONT (SELARL)')).toBe('cabinet des dentistes dupont');
    expect(nameKey('Cabinet des Dentistes Dupont')).toBe('cabinet des dentistes dupont');
    expect(nameKey('Tannlege Ødegård AS')).toBe('tannlege ødegard');
    expect(nameKey('Bright Smile Dental Ltd.')).toBe('bright smile dental');
  });

  it('reads websites by host without www, phones by their last nine digits', () => {
    expect(websiteKey('https://www.Dupont-Dentiste.fr/contact')).toBe('dupont-dentiste.fr');
    expect(websiteKey('dupont-dentiste.fr')).toBe('dupont-dentiste.fr');
    expect(websiteKey('not a url at all')).toBeNull();
    expect(phoneKey('+33 4 78 00 00 01')).toBe(phoneKey('04 78 00 00 01'));
    expect(phoneKey('12')).toBeNull();
  });
});

describe('pipeline/leads: merging', () => {
  it('merges the same business from OSM and a register by name in the same town, keeping each field\'s source', () => {
    const a = osm(place(1, 'Cabinet des Dentistes Dupont', { phone: '+33 4 78 00 00 01', website: 'https://dupont.example/' }, { street: 'Rue de la République', housenumber: '12', city: 'Lyon' }));
    const b = sirene(entry('812345678', 'CABINET DES DENTISTES DUPONT (SELARL)', {}, { street: '12 RUE DE LA REPUBLIQUE', postcode: '69002', city: 'LYON' }));
    const [merged, ...rest] = mergeLeads([a, b]);
    expect(rest).toEqual([]);
    expect(merged).toMatchObject({
      id: 'osm:node/1',
      name: 'Cabinet des Dentistes Dupont',
      phone: '+33 4 78 00 00 01',
      website: 'https://dupont.example/',
      address: { street: '12 RUE DE LA REPUBLIQUE', postcode: '69002', city: 'LYON', country: 'FR' },
      sources: ['osm', 'fr_sirene'],
      fieldSources: { name: 'osm', address: 'fr_sirene', phone: 'osm', website: 'osm' },
      licenses: ['ODbL-1.0', 'etalab-2.0'],
    });
    expect(merged?.refs).toEqual([
      { source: 'osm', id: 'node/1', url: 'https://www.openstreetmap.org/node/1' },
      { source: 'fr_sirene', id: '812345678', url: 'https://annuaire-entreprises.data.gouv.fr/entreprise/812345678' },
    ]);
  });

  it('fills a field the first source lacks from the next one, naming that source', () => {
    const a = osm(place(2, 'Oslo Tannlegesenter', {}, { city: 'Oslo' }));
    const b = fromEntry({ key: no.key, licence: no.licence }, entry('912345678', 'OSLO TANNLEGESENTER AS', { website: 'https://www.oslotannlege.no/' }, { street: 'Karl Johans gate 1', postcode: '0154', city: 'OSLO', country: 'NO' }));
    const [merged] = mergeLeads([a, b]);
    expect(merged?.fieldSources).toEqual({ name: 'osm', address: 'no_brreg', website: 'no_brreg' });
    expect(merged?.website).toBe('https://www.oslotannlege.no/');
  });

  it('merges by website or phone whatever the names, and keeps businesses of one name in two towns apart', () => {
    const site = osm(place(3, 'Dr Martin', { website: 'https://www.martin-dentiste.fr' }));
    const sameSite = sirene(entry('823456789', 'SELARL MARTIN ET ASSOCIES', { website: 'http://martin-dentiste.fr/contact' }));
    const phone = osm(place(4, 'Smile Lyon', { phone: '04 78 11 22 33' }));
    const samePhone = sirene(entry('834567890', 'SOURIRE SAS', { phone: '+33 4 78 11 22 33' }));
    const lyon = sirene(entry('845678901', 'DENTAL CARE', {}, { postcode: '69002', city: 'LYON' }));
    const paris = sirene(entry('856789012', 'DENTAL CARE', {}, { postcode: '75002', city: 'PARIS' }));
    const merged = mergeLeads([site, phone, sameSite, samePhone, lyon, paris]);
    expect(merged.map((l) => [l.name, l.sources])).toEqual([
      ['Dr Martin', ['osm', 'fr_sirene']],
      ['Smile Lyon', ['osm', 'fr_sirene']],
      ['DENTAL CARE', ['fr_sirene']],
      ['DENTAL CARE', ['fr_sirene']],
    ]);
  });

  it('merges forty thousand leads per source in linear time', () => {
    // 80,000 leads: merging them pair by pair (each lead compared with those before it) takes
    // minutes, so the test's own timeout is the bound; the keyed merge reads each lead once.
    const n = 40_000;
    const a = Array.from({ length: n }, (_, i) => osm(place(i, `Business ${i}`, {}, { city: 'Lyon' })));
    const b = Array.from({ length: n }, (_, i) => sirene(entry(String(800000000 + i), `BUSINESS ${i} SAS`, {}, { postcode: '69002', city: 'LYON' })));
    const merged = mergeLeads([...a, ...b]);
    expect(merged).toHaveLength(n);
    expect(merged.every((l, i) => l.name === `Business ${i}` && l.sources.length === 2)).toBe(true);
  });
});

describe('pipeline/leads: attribution and sources', () => {
  it('lists the notice of every source whose data is in the leads, in the sources\' order', () => {
    const leads = mergeLeads([sirene(entry('812345678', 'A')), osm(place(5, 'B'))]);
    expect(attributionOf(leads, SOURCES)).toEqual([
      { source: 'osm', text: '© OpenStreetMap contributors, ODbL 1.0', license: 'ODbL-1.0', url: 'https://www.openstreetmap.org/copyright' },
      { source: 'fr_sirene', text: fr.licence.text, license: 'etalab-2.0', url: fr.licence.url },
    ]);
    expect(attributionOf([], SOURCES)).toEqual([]);
  });

  it('offers OpenStreetMap everywhere and each register for its own country', () => {
    expect(SOURCES[0]).toBe(OSM);
    expect(sourcesFor(SOURCES, 'fr').map((s) => s.key)).toEqual(['osm', 'fr_sirene']);
    expect(sourcesFor(SOURCES, 'GB').map((s) => s.key)).toEqual(['osm', 'uk_companies_house']);
    expect(sourcesFor(SOURCES, 'NO').map((s) => s.key)).toEqual(['osm', 'no_brreg']);
    expect(sourcesFor(SOURCES, 'DE').map((s) => s.key)).toEqual(['osm']);
    expect(sourcesFor(SOURCES, null)).toHaveLength(4);
  });

  it('offers a register only when it is configured: its URL, and for Companies House its key', () => {
    const keys = (env: Record<string, string>) => configuredRegisters(loadConfig({ DATA_DIR: '/tmp/unused', ...env })).map((r) => r.key);
    expect(keys({})).toEqual([]);
    expect(keys({ FR_ENTREPRISES_URL: 'http://127.0.0.1:1', NO_BRREG_URL: 'http://127.0.0.1:2' })).toEqual(['fr_sirene', 'no_brreg']);
    // Companies House has a default URL but no key: not offered until the key is set.
    expect(keys({ UK_COMPANIES_HOUSE_URL: 'http://127.0.0.1:3' })).toEqual([]);
    expect(keys({ UK_COMPANIES_HOUSE_API_KEY: 'a-key-of-companies-house' })).toEqual(['uk_companies_house']);
  });
});

describe('pipeline/leads/activities', () => {
  it('reads the kind of business a query names as each register\'s activity codes, else none', async () => {
    const { activityOf, registerCodes, ACTIVITIES } = await import('../../pipeline/leads/activities.js');
    expect(activityOf('dentists')?.nace).toBe('86.23');
    expect(activityOf('dentistes')?.nace).toBe('86.23');
    expect(registerCodes(activityOf('dental clinic'), 'fr_sirene')).toEqual(['86.23Z']);
    expect(registerCodes(activityOf('pharmacies'), 'uk_companies_house')).toEqual(['47730']);
    expect(registerCodes(activityOf('bakeries'), 'no_brreg')).toEqual(['10.710']);
    expect(activityOf('Acme Widgets')).toBeNull();
    expect(registerCodes(null, 'fr_sirene')).toBeNull();
    // Each register's codes descend from the NACE class: NAF adds a letter, SIC and SN2007 a digit.
    for (const a of ACTIVITIES) {
      const digits = a.nace.replace('.', '');
      for (const code of a.codes.fr_sirene ?? []) expect(code, a.category).toMatch(new RegExp(`^${a.nace.replace('.', '\\.')}[A-Z]$`));
      for (const code of a.codes.uk_companies_house ?? []) expect(code, a.category).toMatch(new RegExp(`^${digits}\\d$`));
      for (const code of a.codes.no_brreg ?? []) expect(code, a.category).toMatch(new RegExp(`^${a.nace.replace('.', '\\.')}\\d$`));
    }
  });
});
