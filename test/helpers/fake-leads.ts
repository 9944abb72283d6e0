/**
 * The world a Find Leads test runs in: Lyon in the local Nominatim's gazetteer, dentists and
 * pharmacies in Lyon on the local Overpass's map (their websites on local sites the test
 * gives), and dentists in the local French register (test/helpers/fake-registers.ts), one of
 * them the same business as a dentist on the map, written as the register writes it.
 */
import { frCompany } from './fake-registers.js';
import type { FixtureElement, GazetteerEntry } from './fake-osm.js';

export const LYON_AREA = 3_600_120_965;

export const LYON: GazetteerEntry = {
  osmType: 'relation', osmId: 120965, lat: '45.7578137', lon: '4.8320114', category: 'boundary', type: 'administrative', placeRank: 16, importance: 0.74, addressType: 'city',
  names: { default: 'Lyon' }, displayNames: { default: 'Lyon, Métropole de Lyon, Rhône, Auvergne-Rhône-Alpes, France métropolitaine, France' },
  address: { city: 'Lyon', county: 'Métropole de Lyon', state: 'Auvergne-Rhône-Alpes', 'ISO3166-2-lvl4': 'FR-ARA', country: 'France', country_code: 'fr' },
  boundingbox: ['45.7073666', '45.8082628', '4.7718134', '4.8983774'],
  words: ['lyon', 'rhone', 'rhône', 'france', 'fr'],
};

/** The map: two dentists (one with a website, written as on its door), one pharmacy whose website is `slowSite`. */
export function lyonElements(sites: { readonly dentist: string; readonly slow: string }): FixtureElement[] {
  return [
    {
      type: 'node', id: 9001, lat: 45.7601, lon: 4.8357, areas: [LYON_AREA],
      tags: { amenity: 'dentist', healthcare: 'dentist', name: 'Cabinet des Dentistes Dupont', 'addr:housenumber': '12', 'addr:street': 'Rue de la République', 'addr:city': 'Lyon', phone: '+33 4 78 00 00 01', website: sites.dentist },
    },
    { type: 'node', id: 9002, lat: 45.7485, lon: 4.8467, areas: [LYON_AREA], tags: { amenity: 'dentist', name: 'Centre Dentaire Guillotière', 'addr:city': 'Lyon', 'addr:postcode': '69007' } },
    { type: 'node', id: 9003, lat: 45.7640, lon: 4.8357, areas: [LYON_AREA], tags: { amenity: 'pharmacy', healthcare: 'pharmacy', name: 'Pharmacie des Terreaux', 'addr:city': 'Lyon', website: sites.slow } },
  ];
}

/** The register: the map's Dupont under its legal name (and a full address), and a dentist the map lacks. */
export const LYON_REGISTER = [
  frCompany('812345678', 'CABINET DES DENTISTES DUPONT (SELARL)', {
    adresse: '12 RUE DE LA REPUBLIQUE 69002 LYON', numero_voie: '12', type_voie: 'RUE', libelle_voie: 'DE LA REPUBLIQUE', code_postal: '69002', libelle_commune: 'LYON', latitude: '45.7601', longitude: '4.8357', activite_principale: '86.23Z',
  }),
  frCompany('823456789', 'SELARL DES DENTISTES MARTIN', {
    adresse: '3 PLACE BELLECOUR 69002 LYON', numero_voie: '3', type_voie: 'PLACE', libelle_voie: 'BELLECOUR', code_postal: '69002', libelle_commune: 'LYON', activite_principale: '86.23Z',
  }),
];
