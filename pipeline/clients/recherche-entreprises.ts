/**
 * France's company search API, "API Recherche d'entreprises" (FR_ENTREPRISES_URL, e.g.
 * `https://recherche-entreprises.api.gouv.fr`): open, no key, SIRENE data published by INSEE
 * under Etalab's Licence Ouverte 2.0. One question is `GET <base>/search?q=<what>
 * [&code_postal=<where>]&page=<n>&per_page=<≤25>`; a `where` that is a five-digit postcode
 * goes to `code_postal`, any other `where` is added to `q` (the API matches names and
 * addresses). With activity codes (NAF), they go to `activite_principale` (comma-separated)
 * and `q` holds the place alone. Pages are read until the limit, the last page or
 * REGISTER_MAX_PAGES.
 *
 * Answers `{results: [{siren, nom_complet, siege: {adresse, code_postal, libelle_commune,
 * latitude, longitude, activite_principale, etat_administratif}, …}], total_pages}` are read
 * defensively: a body without a `results` list is `unreadable`, an entry without a SIREN or a
 * name is left out. The API's rate limit (about 7 requests a second) answers 429, a
 * `rate_limited` ServiceError with its wait.
 */
import { coordinatesOf, joined, pagedEntries, RegisterHttpClient } from './business-register.js';
import type { BusinessRegister, RegisterClientOptions, RegisterContext, RegisterEntry, RegisterQuery } from './business-register.js';
import { below, list, record, text } from './json-shapes.js';
import { ServiceError, shownEndpoint } from './service-http.js';

const SERVICE = 'recherche-entreprises';
/** The API's largest page. */
export const FR_PER_PAGE = 25;
const POSTCODE = /^\d{5}$/;

export class RechercheEntreprisesClient extends RegisterHttpClient implements BusinessRegister {
  readonly key = 'fr_sirene';
  readonly label = "France: company register (SIRENE, API Recherche d'entreprises)";
  readonly countries = ['FR'] as const;
  readonly licence = {
    text: "Base Sirene des entreprises et de leurs établissements (INSEE), via l'API Recherche d'entreprises — Licence Ouverte / Open Licence 2.0 (Etalab)",
    license: 'etalab-2.0',
    url: 'https://www.etalab.gouv.fr/licence-ouverte-open-licence',
  };

  constructor(options: RegisterClientOptions) {
    super(SERVICE, options);
  }

  async search(query: RegisterQuery, ctx: RegisterContext): Promise<RegisterEntry[]> {
    const where = query.where?.trim() ?? '';
    return pagedEntries(query, ctx, async (index, timeoutMs) => {
      // The API's pages count from 1.
      const page = index + 1;
      const url = below(this.base, '/search');
      const what = query.codes?.length ? '' : query.what.trim();
      const q = POSTCODE.test(where) ? what : [what, where].filter(Boolean).join(' ');
      if (q) url.searchParams.set('q', q);
      if (POSTCODE.test(where)) url.searchParams.set('code_postal', where);
      if (query.codes?.length) url.searchParams.set('activite_principale', query.codes.join(','));
      url.searchParams.set('page', String(page));
      url.searchParams.set('per_page', String(Math.min(FR_PER_PAGE, query.limit)));
      const answer = await this.getPage(url, timeoutMs, ctx);
      const body = record(answer.json);
      if (!body || !Array.isArray(body.results)) throw new ServiceError(SERVICE, 'unreadable', `${shownEndpoint(url)} answered JSON without a \`results\` list`, null, answer.status);
      const pages = typeof body.total_pages === 'number' ? body.total_pages : page;
      return { items: list(body.results), more: page < pages };
    }, entryOf);
  }
}

function entryOf(item: unknown): RegisterEntry | null {
  const r = record(item);
  const siren = text(r?.siren);
  const name = text(r?.nom_complet) ?? text(r?.nom_raison_sociale);
  if (!r || !siren || !/^\d{9}$/.test(siren) || !name) return null;
  const siege = record(r.siege) ?? {};
  const postcode = text(siege.code_postal);
  const city = text(siege.libelle_commune);
  const street = joined([text(siege.numero_voie), text(siege.type_voie), text(siege.libelle_voie)], ' ');
  const code = text(siege.activite_principale) ?? text(r.activite_principale);
  const state = text(siege.etat_administratif) ?? text(r.etat_administratif);
  return {
    id: siren,
    name,
    address: { street, postcode, city, country: 'FR' },
    formattedAddress: text(siege.adresse) ?? joined([street, joined([postcode, city], ' ')]),
    phone: null,
    website: null,
    activity: code ? { code, label: null } : null,
    status: state === 'A' ? 'active' : state === 'F' || state === 'C' ? 'closed' : state,
    coordinates: coordinatesOf(siege.latitude, siege.longitude),
    url: `https://annuaire-entreprises.data.gouv.fr/entreprise/${siren}`,
  };
}
