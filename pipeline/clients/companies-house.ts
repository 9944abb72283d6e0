/**
 * The UK's Companies House public data API (UK_COMPANIES_HOUSE_URL, e.g.
 * `https://api.company-information.service.gov.uk`, with UK_COMPANIES_HOUSE_API_KEY: a free
 * key sent as HTTP basic auth, the key as the user and no password). Data under the Open
 * Government Licence v3.0. One question is `GET <base>/advanced-search/companies?
 * company_name_includes=<what>[&location=<where>]&company_status=active&size=<≤100>
 * &start_index=<n>`, or with activity codes `sic_codes=<codes>` instead of the name; pages are read until the limit, the last hit or REGISTER_MAX_PAGES. An
 * advanced search that finds nothing answers 404, read as no entries.
 *
 * Answers `{items: [{company_number, company_name, registered_office_address: {address_line_1,
 * address_line_2, locality, postal_code, country}, sic_codes, company_status}], hits}` are read
 * defensively (a body without `items` is `unreadable`, an item without a number or a name is
 * left out). A refused key is a `rejected` ServiceError; the API's 600 requests per 5 minutes
 * answer 429, `rate_limited`. The key is never logged nor put in a message.
 */
import { joined, pagedEntries, RegisterHttpClient } from './business-register.js';
import type { BusinessRegister, RegisterClientOptions, RegisterContext, RegisterEntry, RegisterQuery } from './business-register.js';
import { below, list, record, text } from './json-shapes.js';
import { isServiceError, ServiceError, shownEndpoint } from './service-http.js';

const SERVICE = 'companies-house';
/** The page size asked. */
export const UK_PAGE_SIZE = 100;

export interface CompaniesHouseOptions extends RegisterClientOptions {
  /** UK_COMPANIES_HOUSE_API_KEY. */
  readonly apiKey: string;
}

export class CompaniesHouseClient extends RegisterHttpClient implements BusinessRegister {
  readonly key = 'uk_companies_house';
  readonly label = 'United Kingdom: Companies House register';
  readonly countries = ['GB'] as const;
  readonly licence = {
    text: 'Contains public sector information from Companies House licensed under the Open Government Licence v3.0',
    license: 'OGL-UK-3.0',
    url: 'https://www.nationalarchives.gov.uk/doc/open-government-licence/version/3/',
  };
  private readonly authorization: string;

  constructor(options: CompaniesHouseOptions) {
    super(SERVICE, options);
    this.authorization = `Basic ${Buffer.from(`${options.apiKey}:`).toString('base64')}`;
  }

  async search(query: RegisterQuery, ctx: RegisterContext): Promise<RegisterEntry[]> {
    const size = Math.min(UK_PAGE_SIZE, query.limit);
    return pagedEntries(query, ctx, async (page, timeoutMs) => {
      const url = below(this.base, '/advanced-search/companies');
      if (query.codes?.length) url.searchParams.set('sic_codes', query.codes.join(','));
      else url.searchParams.set('company_name_includes', query.what.trim());
      if (query.where?.trim()) url.searchParams.set('location', query.where.trim());
      url.searchParams.set('company_status', 'active');
      url.searchParams.set('size', String(size));
      url.searchParams.set('start_index', String(page * size));
      let json: unknown;
      let status: number;
      try {
        const answer = await this.getPage(url, timeoutMs, ctx, { Authorization: this.authorization });
        json = answer.json;
        status = answer.status;
      } catch (error) {
        // The advanced search answers 404 when nothing matches.
        if (isServiceError(error) && error.status === 404) return null;
        throw error;
      }
      const body = record(json);
      if (!body || !Array.isArray(body.items)) throw new ServiceError(SERVICE, 'unreadable', `${shownEndpoint(url)} answered JSON without an \`items\` list`, null, status);
      const hits = typeof body.hits === 'number' ? body.hits : 0;
      return { items: list(body.items), more: body.items.length >= size && (page + 1) * size < hits };
    }, entryOf);
  }
}

function entryOf(item: unknown): RegisterEntry | null {
  const r = record(item);
  const number = text(r?.company_number);
  const name = text(r?.company_name);
  if (!r || !number || !/^[A-Z0-9]{8}$/i.test(number) || !name) return null;
  const a = record(r.registered_office_address) ?? {};
  const street = joined([text(a.premises), text(a.address_line_1), text(a.address_line_2)]);
  const postcode = text(a.postal_code);
  const city = text(a.locality);
  const sic = list(r.sic_codes).map(text).find((s): s is string => s !== null) ?? null;
  return {
    id: number.toUpperCase(),
    name,
    address: { street, postcode, city, country: 'GB' },
    formattedAddress: joined([street, city, postcode]),
    phone: null,
    website: null,
    activity: sic ? { code: sic, label: null } : null,
    status: text(r.company_status),
    coordinates: null,
    url: `https://find-and-update.company-information.service.gov.uk/company/${encodeURIComponent(number.toUpperCase())}`,
  };
}
