/**
 * Norway's Central Coordinating Register for Legal Entities, Brønnøysundregistrene's
 * Enhetsregisteret (NO_BRREG_URL, e.g. `https://data.brreg.no`): open, no key, data under the
 * Norwegian Licence for Open Government Data (NLOD) 2.0. One question is
 * `GET <base>/enhetsregisteret/api/enheter?navn=<what>[&forretningsadresse.poststed=<WHERE>]
 * &konkurs=false&underAvvikling=false&page=<n>&size=<≤100>`: a `where` is asked as the
 * business address's post town (the register writes them in capitals); with activity codes,
 * `naeringskode=<codes>` instead of the name. Pages are read until
 * the limit, the last page or REGISTER_MAX_PAGES.
 *
 * Answers are HAL: `{_embedded: {enheter: [{organisasjonsnummer, navn, naeringskode1:
 * {kode, beskrivelse}, forretningsadresse: {adresse: [..], postnummer, poststed, landkode},
 * hjemmeside}]}, page: {totalPages, number}}`; a page without `_embedded` has no entries.
 * An answer that is not an object is `unreadable`; an entry without a nine-digit number or a
 * name is left out. `hjemmeside` (often written without a scheme) becomes an https URL.
 */
import { joined, pagedEntries, RegisterHttpClient } from './business-register.js';
import type { BusinessRegister, RegisterClientOptions, RegisterContext, RegisterEntry, RegisterQuery } from './business-register.js';
import { below, httpUrl, list, record, text } from './json-shapes.js';
import { ServiceError, shownEndpoint } from './service-http.js';

const SERVICE = 'brreg';
export const NO_PAGE_SIZE = 100;

export class BrregClient extends RegisterHttpClient implements BusinessRegister {
  readonly key = 'no_brreg';
  readonly label = 'Norway: Central Coordinating Register for Legal Entities (Brønnøysund)';
  readonly countries = ['NO'] as const;
  readonly licence = {
    text: 'Enhetsregisteret, Brønnøysundregistrene — Norsk lisens for offentlige data (NLOD) 2.0',
    license: 'NLOD-2.0',
    url: 'https://data.norge.no/nlod/en/2.0',
  };

  constructor(options: RegisterClientOptions) {
    super(SERVICE, options);
  }

  async search(query: RegisterQuery, ctx: RegisterContext): Promise<RegisterEntry[]> {
    const size = Math.min(NO_PAGE_SIZE, query.limit);
    return pagedEntries(query, ctx, async (page, timeoutMs) => {
      const url = below(this.base, '/enhetsregisteret/api/enheter');
      if (query.codes?.length) url.searchParams.set('naeringskode', query.codes.join(','));
      else url.searchParams.set('navn', query.what.trim());
      if (query.where?.trim()) url.searchParams.set('forretningsadresse.poststed', query.where.trim().toUpperCase());
      url.searchParams.set('konkurs', 'false');
      url.searchParams.set('underAvvikling', 'false');
      url.searchParams.set('page', String(page));
      url.searchParams.set('size', String(size));
      const answer = await this.getPage(url, timeoutMs, ctx, { Accept: 'application/json' });
      const body = record(answer.json);
      if (!body) throw new ServiceError(SERVICE, 'unreadable', `${shownEndpoint(url)} answered JSON that is not an object`, null, answer.status);
      const totalPages = record(body.page)?.totalPages;
      return { items: list(record(body._embedded)?.enheter), more: typeof totalPages === 'number' && page + 1 < totalPages };
    }, entryOf);
  }
}

function websiteOf(v: unknown): string | null {
  const raw = text(v);
  if (!raw) return null;
  return httpUrl(/^https?:\/\//i.test(raw) ? raw : `https://${raw}`);
}

function entryOf(item: unknown): RegisterEntry | null {
  const r = record(item);
  const number = text(r?.organisasjonsnummer);
  const name = text(r?.navn);
  if (!r || !number || !/^\d{9}$/.test(number) || !name) return null;
  const a = record(r.forretningsadresse) ?? record(r.postadresse) ?? {};
  const street = joined(list(a.adresse).map(text));
  const postcode = text(a.postnummer);
  const city = text(a.poststed);
  const nace = record(r.naeringskode1);
  const code = text(nace?.kode);
  return {
    id: number,
    name,
    address: { street, postcode, city, country: (text(a.landkode) ?? 'NO').toUpperCase() },
    formattedAddress: joined([street, joined([postcode, city], ' ')]),
    phone: text(r.telefon) ?? text(r.mobil),
    website: websiteOf(r.hjemmeside),
    activity: code ? { code, label: text(nace?.beskrivelse) } : null,
    status: r.konkurs === true ? 'bankrupt' : r.underAvvikling === true ? 'winding_up' : 'active',
    coordinates: null,
    url: `https://virksomhet.brreg.no/nb/oppslag/enheter/${number}`,
  };
}
