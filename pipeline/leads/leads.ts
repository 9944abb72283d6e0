/**
 * A lead and how leads from several sources become one list: each source's findings made
 * leads (`fromPlace` for OpenStreetMap, `fromEntry` for a register), then merged so that one
 * business found by several sources is one lead.
 *
 * - **Same business**: the same website host (`www.` dropped), or the same phone (digits
 *   only, the last nine compared), or the same name key (lower case, accents and punctuation
 *   dropped, legal forms such as `SARL`, `Ltd`, `AS` left out) in the same place (the same
 *   postcode, else the same city; a lead without either matches on the name alone only when
 *   the other has neither too).
 * - **Fields** (`name`, `address`, `phone`, `website`): a merged lead keeps the value of the
 *   first source that has one, in the run's source order (OpenStreetMap first: its names are
 *   the ones on the door), except the address, where the most complete one wins (the most of
 *   street, postcode and city). `fieldSources` names the source of each field kept.
 * - **Provenance**: `sources` lists every source that found the business, `refs` each
 *   source's own id and page, `licenses` the licence of each source (its SPDX-like name), so
 *   the notices travel with every lead; `attributionOf` gives a run's `summary.attribution`
 *   from the leads delivered.
 *
 * Every rule here is linear in the leads (a map per key), whatever the number of sources.
 */
import type { RegisterEntry, RegisterLicence } from '../clients/business-register.js';
import type { Place } from '../search/places.js';
import { OSM_SOURCE, type LeadSource } from './sources.js';

export type LeadField = 'name' | 'address' | 'phone' | 'website';

export interface LeadAddress {
  readonly street: string | null;
  readonly postcode: string | null;
  readonly city: string | null;
  /** Two-letter code when known. */
  readonly country: string | null;
  readonly formatted: string | null;
}

export interface LeadRef {
  readonly source: string;
  /** The source's own id: `node/123` (OSM), a SIREN, a company number. */
  readonly id: string;
  readonly url: string | null;
}

export interface LeadContacts {
  readonly emails: readonly unknown[];
  readonly phones: readonly unknown[];
  readonly contactForms: readonly unknown[];
  readonly socialLinks: readonly unknown[];
}

export interface Lead {
  /** `<source>:<id>` of the first source that found it. */
  readonly id: string;
  readonly name: string;
  readonly address: LeadAddress | null;
  readonly phone: string | null;
  readonly website: string | null;
  readonly email: string | null;
  /** What kind of business the source files it as (`dentist`, `86.23Z`). */
  readonly category: string | null;
  readonly coordinates: { readonly lat: number; readonly lon: number } | null;
  readonly sources: readonly string[];
  readonly fieldSources: Readonly<Partial<Record<LeadField, string>>>;
  readonly refs: readonly LeadRef[];
  readonly licenses: readonly string[];
  /** Added by company enrichment from the website; null before (or without a website). */
  readonly contacts: LeadContacts | null;
}

const present = <T>(v: T | null | undefined): v is T => v !== null && v !== undefined;

function fieldSourcesOf(source: string, lead: Pick<Lead, 'name' | 'address' | 'phone' | 'website'>): Partial<Record<LeadField, string>> {
  const out: Partial<Record<LeadField, string>> = { name: source };
  if (lead.address) out.address = source;
  if (lead.phone) out.phone = source;
  if (lead.website) out.website = source;
  return out;
}

/** An OpenStreetMap place as a lead. */
export function fromPlace(place: Place, licence: RegisterLicence): Lead {
  const a = place.address;
  const street = a.street ? (a.housenumber ? `${a.housenumber} ${a.street}` : a.street) : null;
  const address: LeadAddress | null =
    street || a.postcode || a.city || place.formattedAddress
      ? { street, postcode: a.postcode, city: a.city, country: a.country && /^[a-z]{2}$/i.test(a.country) ? a.country.toUpperCase() : null, formatted: place.formattedAddress }
      : null;
  const id = `${place.osm.type}/${place.osm.id}`;
  const base = { name: place.name, address, phone: place.phone, website: place.website };
  return {
    id: `${OSM_SOURCE}:${id}`,
    ...base,
    email: place.email,
    category: place.category,
    coordinates: place.coordinates,
    sources: [OSM_SOURCE],
    fieldSources: fieldSourcesOf(OSM_SOURCE, base),
    refs: [{ source: OSM_SOURCE, id, url: place.osmUrl }],
    licenses: [licence.license],
    contacts: null,
  };
}

/** A register's entry as a lead. */
export function fromEntry(source: Pick<LeadSource, 'key' | 'licence'>, entry: RegisterEntry): Lead {
  const a = entry.address;
  const address: LeadAddress | null = a.street || a.postcode || a.city || entry.formattedAddress ? { street: a.street, postcode: a.postcode, city: a.city, country: a.country, formatted: entry.formattedAddress } : null;
  const base = { name: entry.name, address, phone: entry.phone, website: entry.website };
  return {
    id: `${source.key}:${entry.id}`,
    ...base,
    email: null,
    category: entry.activity?.code ?? null,
    coordinates: entry.coordinates,
    sources: [source.key],
    fieldSources: fieldSourcesOf(source.key, base),
    refs: [{ source: source.key, id: entry.id, url: entry.url }],
    licenses: [source.licence.license],
    contacts: null,
  };
}

// ---- same business -----------------------------------------------------------------------

/** Legal forms left out of a name key (lower case, accents dropped). */
const LEGAL_FORMS = new Set([
  'sarl', 'sas', 'sasu', 'sa', 'eurl', 'sci', 'selarl', 'selas', 'snc', 'scp', 'earl',
  'ltd', 'limited', 'plc', 'llp', 'llc', 'inc', 'co', 'company', 'corp',
  'as', 'asa', 'ans', 'da', 'enk', 'nuf', 'ba',
  'gmbh', 'ag', 'kg', 'ug', 'bv', 'nv', 'srl', 'spa', 'ab', 'oy', 'aps',
]);

/** Lower case, accents and punctuation dropped, legal forms left out, words sorted: `CABINET DENTAIRE DUPONT SARL` → `cabinet dentaire dupont`. */
export function nameKey(name: string): string {
  const words = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .split(' ')
    .filter((w) => w !== '' && !LEGAL_FORMS.has(w));
  return words.join(' ');
}

/** The website's host without `www.`; null when it is not a URL. */
export function websiteKey(website: string | null): string | null {
  if (!website) return null;
  try {
    const host = new URL(/^https?:\/\//i.test(website) ? website : `https://${website}`).hostname.toLowerCase();
    return host.startsWith('www.') ? host.slice(4) : host;
  } catch {
    return null;
  }
}

/** The phone's last nine digits (national and international forms of one number agree); null under six digits. */
export function phoneKey(phone: string | null): string | null {
  if (!phone) return null;
  const digits = phone.replace(/\D+/g, '');
  return digits.length >= 6 ? digits.slice(-9) : null;
}

/** Keys under which a lead is found again: website, phone, name in its place. */
function keysOf(lead: Lead): string[] {
  const keys: string[] = [];
  const site = websiteKey(lead.website);
  if (site) keys.push(`w:${site}`);
  const phone = phoneKey(lead.phone);
  if (phone) keys.push(`t:${phone}`);
  const name = nameKey(lead.name);
  if (name) {
    const postcode = lead.address?.postcode?.replace(/\s+/g, '').toLowerCase();
    const city = lead.address?.city ? nameKey(lead.address.city) : '';
    if (postcode) keys.push(`n:${name}|p:${postcode}`);
    if (city) keys.push(`n:${name}|c:${city}`);
    if (!postcode && !city) keys.push(`n:${name}|`);
  }
  return keys;
}

const completeness = (a: LeadAddress | null) => (a ? [a.street, a.postcode, a.city].filter(present).length : -1);

/** `into` with what `other` adds (see the file comment: the first source's value wins, the most complete address). */
export function mergeInto(into: Lead, other: Lead): Lead {
  const fieldSources: Partial<Record<LeadField, string>> = { ...into.fieldSources };
  const pick = <K extends 'phone' | 'website'>(field: K): Lead[K] => {
    if (into[field] || !other[field]) return into[field];
    fieldSources[field] = other.fieldSources[field] ?? other.sources[0];
    return other[field];
  };
  let address = into.address;
  if (completeness(other.address) > completeness(into.address)) {
    address = other.address && into.address ? { ...other.address, country: other.address.country ?? into.address.country, formatted: other.address.formatted ?? into.address.formatted } : other.address;
    fieldSources.address = other.fieldSources.address ?? other.sources[0];
  }
  const union = (a: readonly string[], b: readonly string[]) => [...a, ...b.filter((x) => !a.includes(x))];
  return {
    ...into,
    address,
    phone: pick('phone'),
    website: pick('website'),
    email: into.email ?? other.email,
    category: into.category ?? other.category,
    coordinates: into.coordinates ?? other.coordinates,
    sources: union(into.sources, other.sources),
    fieldSources,
    refs: [...into.refs, ...other.refs.filter((r) => !into.refs.some((x) => x.source === r.source && x.id === r.id))],
    licenses: union(into.licenses, other.licenses),
    contacts: into.contacts ?? other.contacts,
  };
}

/**
 * Merges leads found by several sources, in the order given (the run's source order, then
 * each source's own order): a lead that is the same business as an earlier one is merged
 * into it; the rest keep their order.
 */
export function mergeLeads(leads: readonly Lead[]): Lead[] {
  const out: Lead[] = [];
  const index = new Map<string, number>();
  for (const lead of leads) {
    const keys = keysOf(lead);
    const at = keys.map((k) => index.get(k)).find(present);
    if (at === undefined) {
      out.push(lead);
      for (const k of keys) index.set(k, out.length - 1);
      continue;
    }
    const merged = mergeInto(out[at] as Lead, lead);
    out[at] = merged;
    for (const k of keysOf(merged)) if (!index.has(k)) index.set(k, at);
  }
  return out;
}

export interface AttributionNotice {
  readonly source: string;
  readonly text: string;
  readonly license: string;
  readonly url: string;
}

/** The notice of every source that contributed to at least one of the leads, in the sources' order. */
export function attributionOf(leads: readonly Lead[], sources: readonly LeadSource[]): AttributionNotice[] {
  const used = new Set(leads.flatMap((l) => l.sources));
  return sources.filter((s) => used.has(s.key)).map((s) => ({ source: s.key, text: s.licence.text, license: s.licence.license, url: s.licence.url }));
}
