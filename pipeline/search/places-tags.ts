/**
 * OpenStreetMap elements as places: the OSM tags of an Overpass element mapped onto a Place.
 *
 * - The name is `name:<lang>` when asked in a language and mapped, else `name`; an element
 *   with neither is no place (places.ts counts it as unnamed).
 * - The kind is the first of amenity, shop, tourism, … the element has; the category its value.
 * - The address comes from `addr:*`; `addr:full` wins, else it is written as the country
 *   writes it (house number before or after the street, postcode before or after the city).
 * - Contacts fall back to their `contact:*` tags; a node's position, or a way's or relation's
 *   centre, is its coordinates.
 */
import type { LatLon, OsmType, OverpassElement } from '../clients/overpass.js';

export interface PlaceAddress {
  readonly street: string | null;
  readonly housenumber: string | null;
  readonly postcode: string | null;
  readonly city: string | null;
  readonly state: string | null;
  readonly country: string | null;
}

export interface Place {
  readonly name: string;
  /** The kind's value: `cafe`. */
  readonly category: string | null;
  /** The key it came from: `amenity`, `shop`, `tourism`, … */
  readonly kind: string | null;
  readonly address: PlaceAddress;
  readonly formattedAddress: string | null;
  /** A node's position, or a way's or relation's centre. */
  readonly coordinates: LatLon | null;
  readonly phone: string | null;
  readonly website: string | null;
  readonly email: string | null;
  /** OSM `opening_hours` syntax: `Mo-Fr 09:00-18:00; Sa 10:00-14:00`. */
  readonly openingHours: string | null;
  /** OSM `cuisine`, `;`-separated as mapped. */
  readonly cuisine: string | null;
  readonly brand: string | null;
  readonly wheelchair: string | null;
  readonly osm: { readonly type: OsmType; readonly id: number };
  readonly osmUrl: string;
}

/** Keys that say what a place is, the first present wins. */
const KIND_KEYS = ['amenity', 'shop', 'tourism', 'leisure', 'healthcare', 'craft', 'office', 'railway', 'aeroway', 'highway', 'natural', 'historic'];
/** Countries that write the house number before the street. */
const NUMBER_FIRST = new Set(['US', 'CA', 'GB', 'IE', 'AU', 'NZ', 'FR', 'LU', 'IN', 'ZA', 'SG', 'MY', 'PH', 'IL']);
/** Countries that write the postcode after the city (and state). */
const POSTCODE_LAST = new Set(['US', 'CA', 'AU', 'GB', 'IE', 'NZ', 'IN']);

const tag = (tags: Readonly<Record<string, string>>, ...keys: string[]): string | null => {
  for (const key of keys) {
    const value = tags[key]?.trim();
    if (value) return value;
  }
  return null;
};

const joined = (parts: readonly (string | null)[], separator: string): string | null => parts.filter((p): p is string => p !== null).join(separator) || null;

/** The address as written where the place is (`country` decides the order; unknown: US style). */
export function formatAddress(address: PlaceAddress, country: string | null): string | null {
  const code = country && /^[a-z]{2}$/i.test(country) ? country.toUpperCase() : 'US';
  const line = NUMBER_FIRST.has(code) ? joined([address.housenumber, address.street], ' ') : joined([address.street, address.housenumber], ' ');
  const town = POSTCODE_LAST.has(code) ? [address.city, joined([address.state, address.postcode], ' ')] : [joined([address.postcode, address.city], ' '), address.state];
  return joined([line, ...town, address.country], ', ');
}

/** An element as a place; null when it has no name (in `lang`, or plain). */
export function placeOf(element: OverpassElement, lang: string | null, countryHint: string | null): Place | null {
  const tags = element.tags;
  const primary = lang?.split('-')[0]?.toLowerCase();
  const name = tag(tags, ...(primary ? [`name:${primary}`] : []), 'name');
  if (!name) return null;
  const kind = KIND_KEYS.find((key) => tag(tags, key) !== null) ?? null;
  const address: PlaceAddress = {
    street: tag(tags, 'addr:street'),
    housenumber: tag(tags, 'addr:housenumber'),
    postcode: tag(tags, 'addr:postcode'),
    city: tag(tags, 'addr:city'),
    state: tag(tags, 'addr:state'),
    country: tag(tags, 'addr:country'),
  };
  return {
    name,
    category: kind ? tag(tags, kind) : null,
    kind,
    address,
    formattedAddress: tag(tags, 'addr:full') ?? formatAddress(address, address.country ?? countryHint),
    coordinates: element.lat !== null && element.lon !== null ? { lat: element.lat, lon: element.lon } : element.center,
    phone: tag(tags, 'phone', 'contact:phone'),
    website: tag(tags, 'website', 'contact:website', 'url'),
    email: tag(tags, 'email', 'contact:email'),
    openingHours: tag(tags, 'opening_hours'),
    cuisine: tag(tags, 'cuisine'),
    brand: tag(tags, 'brand'),
    wheelchair: tag(tags, 'wheelchair'),
    osm: { type: element.type, id: element.id },
    osmUrl: `https://www.openstreetmap.org/${element.type}/${element.id}`,
  };
}
