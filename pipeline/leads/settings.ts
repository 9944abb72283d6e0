/**
 * The settings of Find Leads (POST /v1/leads, GET /v1/leads/sources): where each open
 * business register is reached and with which key, and how long a source may take. This
 * family's part of the one settings table: pipeline/service/settings.ts assembles the parts,
 * pipeline/runtime/config.ts parses them; docs/configuration.md lists them.
 *
 * OpenStreetMap is always a source, through places search's NOMINATIM_URL and OVERPASS_URL
 * (pipeline/search/settings.ts). A register is a source only when its URL is set (and, for
 * Companies House, its key): a register not configured is not offered by GET
 * /v1/leads/sources, and a run naming it is refused (422).
 *
 * The endpoints are operator configuration, trusted as SEARXNG_URL is: they may be private
 * addresses. Lead websites read for contacts go through the fetch path and its SSRF guard.
 */
import type { ConfigOf, SettingsTable } from '../runtime/config.js';

export const LEADS_SETTINGS = {
  frEntreprisesUrl: {
    env: 'FR_ENTREPRISES_URL',
    type: 'string',
    default: null,
    description:
      "Base URL of France's company search API, API Recherche d'entreprises over SIRENE (`https://recherche-entreprises.api.gouv.fr`; `/search` below it); open, no key, Licence Ouverte 2.0. Unset: the French register is not a leads source.",
  },
  ukCompaniesHouseUrl: {
    env: 'UK_COMPANIES_HOUSE_URL',
    type: 'string',
    default: 'https://api.company-information.service.gov.uk',
    description: "Base URL of the UK's Companies House public data API (`/advanced-search/companies` below it); used only with UK_COMPANIES_HOUSE_API_KEY.",
  },
  ukCompaniesHouseApiKey: {
    env: 'UK_COMPANIES_HOUSE_API_KEY',
    type: 'string',
    default: null,
    secret: true,
    description: 'Companies House API key (free; sent as HTTP basic auth, the key as the user, no password). Unset: Companies House is not a leads source.',
  },
  noBrregUrl: {
    env: 'NO_BRREG_URL',
    type: 'string',
    default: null,
    description:
      "Base URL of Norway's Brønnøysund register, Enhetsregisteret (`https://data.brreg.no`; `/enhetsregisteret/api/enheter` below it); open, no key, NLOD 2.0. Unset: the Norwegian register is not a leads source.",
  },
  leadsSourceTimeoutMs: {
    env: 'LEADS_SOURCE_TIMEOUT_MS',
    type: 'integer',
    default: 30000,
    min: 1000,
    max: 120000,
    description: "How long one source of a leads run may take (every page it reads); a source past it, or failing, is named in the run's `warning` and the others' leads are kept.",
  },
} as const satisfies SettingsTable;

export type LeadsConfig = ConfigOf<typeof LEADS_SETTINGS>;
