/**
 * What kind of business a run's `query` names, as the registers file it: the places
 * vocabulary's category (pipeline/search/places-vocabulary.ts: `dentists`, `dentistes`,
 * `dental clinic` → `dentist`) mapped to its NACE Rev. 2 class and each register's own codes
 * of that class: France's NAF (APE), the UK's SIC 2007, Norway's SN2007 (næringskode). A
 * register asked with codes searches by activity in the place (far more of a town's dentists
 * than their names would find); a query whose category is not here is searched by name.
 *
 * Only classes whose codes in all three schemes are plain descendants of the NACE class are
 * listed (NAF adds a letter, SIC and SN2007 a fifth digit). Source: INSEE's NAF rév. 2, ONS's
 * UK SIC 2007, SSB's SN2007 (all NACE Rev. 2 based).
 */
import { categoryOf } from '../search/places.js';

export interface Activity {
  /** The places vocabulary's category name. */
  readonly category: string;
  /** NACE Rev. 2 class, `86.23`. */
  readonly nace: string;
  /** Each register's codes of the class, by source key. */
  readonly codes: Readonly<Record<string, readonly string[]>>;
}

const row = (category: string, nace: string, fr: string[], uk: string[], no: string[]): Activity => ({ category, nace, codes: { fr_sirene: fr, uk_companies_house: uk, no_brreg: no } });

export const ACTIVITIES: readonly Activity[] = [
  row('dentist', '86.23', ['86.23Z'], ['86230'], ['86.230']),
  row('doctor', '86.21', ['86.21Z'], ['86210'], ['86.211']),
  row('pharmacy', '47.73', ['47.73Z'], ['47730'], ['47.730']),
  row('veterinary', '75.00', ['75.00Z'], ['75000'], ['75.000']),
  row('restaurant', '56.10', ['56.10A', '56.10C'], ['56101', '56102'], ['56.101']),
  row('bakery', '10.71', ['10.71C', '10.71D'], ['10710'], ['10.710']),
  row('hairdresser', '96.02', ['96.02A'], ['96020'], ['96.020']),
  row('hotel', '55.10', ['55.10Z'], ['55100'], ['55.101']),
  row('lawyer', '69.10', ['69.10Z'], ['69102'], ['69.100']),
  row('accountant', '69.20', ['69.20Z'], ['69201'], ['69.201']),
  row('plumber', '43.22', ['43.22A'], ['43220'], ['43.220']),
  row('electrician', '43.21', ['43.21A'], ['43210'], ['43.210']),
];

const BY_CATEGORY = new Map(ACTIVITIES.map((a) => [a.category, a]));

/** The activity a query names, or null (then registers search by name). */
export function activityOf(query: string): Activity | null {
  const category = categoryOf(query);
  return category ? (BY_CATEGORY.get(category.name) ?? null) : null;
}

/** The register's codes of the activity; null when it has none (search by name). */
export function registerCodes(activity: Activity | null, source: string): readonly string[] | null {
  const codes = activity?.codes[source];
  return codes && codes.length ? codes : null;
}
