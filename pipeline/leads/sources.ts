/**
 * The sources of Find Leads: OpenStreetMap everywhere (`osm`, through places search's
 * Nominatim and Overpass clients, pipeline/search/places.ts), and each open business register
 * the operator configured (pipeline/leads/settings.ts), for its countries. GET
 * /v1/leads/sources lists those that cover a country (every one when none is given); a run
 * asks those it names, or all that cover its country.
 *
 * Each source states the licence its data comes under; a lead keeps the keys of the sources
 * it was built from and a run's `summary.attribution` lists each contributing source's notice.
 */
import { BrregClient } from '../clients/brreg.js';
import type { BusinessRegister, RegisterLicence } from '../clients/business-register.js';
import { CompaniesHouseClient } from '../clients/companies-house.js';
import { RechercheEntreprisesClient } from '../clients/recherche-entreprises.js';
import type { HttpFetcher } from '../runtime/net/http.js';
import type { LeadsConfig } from './settings.js';

export const OSM_SOURCE = 'osm';

/** OpenStreetMap's notice: ODbL 1.0, as places search states it. */
export const OSM_LICENCE: RegisterLicence = {
  text: '© OpenStreetMap contributors, ODbL 1.0',
  license: 'ODbL-1.0',
  url: 'https://www.openstreetmap.org/copyright',
};

export interface LeadSource {
  readonly key: string;
  readonly label: string;
  /** Two-letter codes, or `['*']` for everywhere. */
  readonly countries: readonly string[];
  readonly licence: RegisterLicence;
}

export const OSM: LeadSource = { key: OSM_SOURCE, label: 'OpenStreetMap (places with their tags)', countries: ['*'], licence: OSM_LICENCE };

/** The registers the settings configure, in a fixed order (France, United Kingdom, Norway). */
export function configuredRegisters(config: LeadsConfig, fetcher?: HttpFetcher): BusinessRegister[] {
  const registers: BusinessRegister[] = [];
  const with_ = fetcher ? { fetcher } : {};
  if (config.frEntreprisesUrl) registers.push(new RechercheEntreprisesClient({ baseUrl: config.frEntreprisesUrl, ...with_ }));
  if (config.ukCompaniesHouseApiKey && config.ukCompaniesHouseUrl) {
    registers.push(new CompaniesHouseClient({ baseUrl: config.ukCompaniesHouseUrl, apiKey: config.ukCompaniesHouseApiKey, ...with_ }));
  }
  if (config.noBrregUrl) registers.push(new BrregClient({ baseUrl: config.noBrregUrl, ...with_ }));
  return registers;
}

/** What a source is to a listing (no client). */
export function sourceOf(register: Pick<BusinessRegister, 'key' | 'label' | 'countries' | 'licence'>): LeadSource {
  return { key: register.key, label: register.label, countries: [...register.countries], licence: register.licence };
}

/** Every source this instance offers: OpenStreetMap, then the configured registers. */
export function allSources(registers: readonly Pick<BusinessRegister, 'key' | 'label' | 'countries' | 'licence'>[]): LeadSource[] {
  return [OSM, ...registers.map(sourceOf)];
}

/** Whether the source covers the country (null: any country). */
export function covers(source: LeadSource, country: string | null): boolean {
  return country === null || source.countries.includes('*') || source.countries.includes(country.toUpperCase());
}

/** The sources covering the country, in the order of `allSources`. */
export function sourcesFor(sources: readonly LeadSource[], country: string | null): LeadSource[] {
  return sources.filter((s) => covers(s, country));
}
