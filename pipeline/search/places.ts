/**
 * Places search (POST /v1/places/search) over OpenStreetMap: Nominatim says where
 * (pipeline/clients/nominatim.ts), Overpass lists what is there (pipeline/clients/overpass.ts).
 * WHAT is looked up in places-vocabulary.ts, written as Overpass QL by places-query.ts, and the
 * elements found become places in places-tags.ts; this file asks the question and answers it.
 *
 * - WHAT and WHERE: `location` says where when given; otherwise the query's last "… in Y" or
 *   "… near Y". Neither → PlacesInputError (the gateway asks placeQueryProblem first: 422).
 *   With `location` given, a query "X in Y" whose X is a known category searches X, and "in Y"
 *   is ignored with a warning.
 * - WHAT a known category is searched by its OSM tag filters, any other WHAT by name;
 *   `matchedBy` says which way it went.
 * - WHERE is asked of Nominatim (`country` → countrycodes, `lang` → accept-language, 5
 *   results); the first place or boundary among them is taken, else the first result. A
 *   relation or way of an area-like kind is searched inside (`area(3600000000 + id)`,
 *   `area(2400000000 + id)`); a node, anything else, or a "near Y", around its point
 *   (`around:r`, r half the bounding box's diagonal, 1 to 25 km). Nominatim knowing no such
 *   place is an empty answer with a warning.
 * - Places keep Overpass's order; unnamed elements are skipped and the first `limit` named
 *   ones are returned.
 * - Every answer, an empty one too, carries the ODbL attribution. Answers are cached in
 *   coordination state for 1 h (`places:cache:<sha256 of the normalised request>`), except
 *   those Overpass flagged as partial; Nominatim keeps its own 24 h cache.
 */
import { createHash } from 'node:crypto';
import type { BoundingBox, NominatimClient, NominatimPlace } from '../clients/nominatim.js';
import type { LatLon, OsmType, OverpassAnswer, OverpassClient } from '../clients/overpass.js';
import type { State } from '../runtime/state/state.js';
import { maxElementsFor, nameText, overpassQuery, tagsOf, type PlaceMatch, type SearchScope } from './places-query.js';
import { placeOf, type Place } from './places-tags.js';
import { categoryOf, lookupWords } from './places-vocabulary.js';

export { categoryOf, VOCABULARY_SIZE, type PlaceCategory, type TagFilter, type TagSelector } from './places-vocabulary.js';
export { nameText, overpassQuery, tagsOf, type PlaceMatch, type SearchScope } from './places-query.js';
export { formatAddress, placeOf, type Place, type PlaceAddress } from './places-tags.js';

// ---- the question -------------------------------------------------------------------------

/** A question the caller must change: the gateway's 422, the searcher's bad_request. */
export class PlacesInputError extends Error {
  constructor(
    readonly field: 'query' | 'location' | 'country' | 'lang' | 'limit',
    message: string,
  ) {
    super(message);
    this.name = 'PlacesInputError';
  }
}

export interface PlaceQueryProblem {
  readonly field: PlacesInputError['field'];
  readonly message: string;
}

export interface PlaceQuerySplit {
  readonly what: string;
  /** Null when the question says nowhere. */
  readonly where: string | null;
  /** "X near Y": search around Y's point, not inside it. */
  readonly near: boolean;
  /** The query's own "in Y" when `location` took its place. */
  readonly ignoredWhere: string | null;
}

/** The query's last "in" or "near" with words on both sides, as WHAT, the word, WHERE. */
function splitAtPreposition(query: string): { what: string; word: string; where: string } | null {
  const tokens = query.split(/\s+/).filter(Boolean);
  for (let i = tokens.length - 2; i >= 1; i--) {
    const word = (tokens[i] as string).toLowerCase();
    if (word === 'in' || word === 'near') return { what: tokens.slice(0, i).join(' '), word, where: tokens.slice(i + 1).join(' ') };
  }
  return null;
}

/** WHAT and WHERE of a question (see the header). */
export function splitPlaceQuery(query: string, location: string | null): PlaceQuerySplit {
  const split = splitAtPreposition(query);
  const given = location?.trim().replace(/\s+/g, ' ') || null;
  const whole = query.trim().replace(/\s+/g, ' ');
  if (given) {
    return split && categoryOf(split.what) ? { what: split.what, where: given, near: false, ignoredWhere: split.where } : { what: whole, where: given, near: false, ignoredWhere: null };
  }
  if (split) return { what: split.what, where: split.where, near: split.word === 'near', ignoredWhere: null };
  return { what: whole, where: null, near: false, ignoredWhere: null };
}

interface PlacesQuestion {
  readonly split: PlaceQuerySplit & { readonly where: string };
  readonly country: string | null;
  readonly lang: string | null;
  readonly limit: number;
}

const DEFAULT_LIMIT = 20;
const MAX_LIMIT = 100;
/** The most places one places search answers (its `limit`'s bound). */
export const PLACES_MAX_LIMIT = MAX_LIMIT;

/** Why the question cannot be answered as asked, or null. */
export function placeQueryProblem(request: Readonly<Record<string, unknown>>): PlaceQueryProblem | null {
  try {
    readQuestion(request);
    return null;
  } catch (error) {
    if (error instanceof PlacesInputError) return { field: error.field, message: error.message };
    throw error;
  }
}

function readQuestion(request: Readonly<Record<string, unknown>>): PlacesQuestion {
  const query = typeof request.query === 'string' ? request.query.trim() : '';
  if (!query) throw new PlacesInputError('query', '`query` must say what to look for');
  const location = optionalString(request, 'location');
  const split = splitPlaceQuery(query, location);
  if (split.where === null) throw new PlacesInputError('location', 'say where to look: give `location`, or write the query as "… in <place>" or "… near <place>"');
  if (lookupWords(split.what).length === 0) throw new PlacesInputError('query', `\`query\` must say what to look for in ${split.where}`);
  const country = optionalString(request, 'country');
  if (country !== null && !/^[a-z]{2}$/i.test(country)) throw new PlacesInputError('country', '`country` must be a two-letter country code');
  const limit = request.limit ?? DEFAULT_LIMIT;
  if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT) throw new PlacesInputError('limit', `\`limit\` must be a whole number from 1 to ${MAX_LIMIT}`);
  return { split: { ...split, where: split.where }, country: country?.toLowerCase() ?? null, lang: optionalString(request, 'lang'), limit };
}

function optionalString(request: Readonly<Record<string, unknown>>, field: PlacesInputError['field']): string | null {
  const value = request[field];
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string') throw new PlacesInputError(field, `\`${field}\` must be a string`);
  return value.trim() || null;
}

// ---- where ---------------------------------------------------------------------------------

/** Overpass's area ids: relation id + 3600000000, way id + 2400000000. */
const AREA_OFFSET: Readonly<Record<'way' | 'relation', number>> = { relation: 3_600_000_000, way: 2_400_000_000 };
/** Nominatim categories of relations and ways that enclose what we look for. */
const AREA_CATEGORIES = new Set(['boundary', 'place', 'landuse', 'leisure', 'amenity', 'tourism', 'natural', 'historic', 'aeroway']);
const PLACE_CATEGORIES = new Set(['boundary', 'place']);
const MIN_RADIUS_M = 1000;
const MAX_RADIUS_M = 25_000;
const DEFAULT_RADIUS_M = 5000;
const METRES_PER_DEGREE = 111_320;

/** The first town-like result (a place or boundary), else the first one. */
function bestPlace(results: readonly NominatimPlace[]): NominatimPlace | null {
  return results.find((p) => p.category !== null && PLACE_CATEGORIES.has(p.category)) ?? results[0] ?? null;
}

/** Half the bounding box's diagonal, 1 to 25 km (5 km without a box). */
export function radiusOf(box: BoundingBox | null): number {
  if (!box) return DEFAULT_RADIUS_M;
  const dy = (box.north - box.south) * METRES_PER_DEGREE;
  const dx = (box.east - box.west) * METRES_PER_DEGREE * Math.cos((((box.north + box.south) / 2) * Math.PI) / 180);
  return Math.round(Math.min(MAX_RADIUS_M, Math.max(MIN_RADIUS_M, Math.hypot(dx, dy) / 2)));
}

export function scopeOf(place: NominatimPlace, near: boolean): SearchScope {
  if (!near && place.osmType !== 'node' && place.category !== null && AREA_CATEGORIES.has(place.category)) {
    return { kind: 'area', areaId: AREA_OFFSET[place.osmType] + place.osmId };
  }
  return { kind: 'around', radiusM: radiusOf(place.boundingBox), lat: place.lat, lon: place.lon };
}

// ---- the answer ----------------------------------------------------------------------------

export interface PlacesArea {
  readonly name: string | null;
  readonly displayName: string;
  readonly osm: { readonly type: OsmType; readonly id: number };
  readonly coordinates: LatLon;
  readonly boundingBox: BoundingBox | null;
  /** Inside the area, or around its point. */
  readonly searchedAs: 'area' | 'around';
  /** For `around`: the radius, in metres. */
  readonly radiusM: number | null;
}

export interface PlacesAttribution {
  readonly text: '© OpenStreetMap contributors';
  readonly license: 'ODbL-1.0';
  readonly url: 'https://www.openstreetmap.org/copyright';
  /** The notice the services sent (Nominatim's `licence`, else Overpass's `copyright`). */
  readonly notice: string | null;
}

export interface PlacesAnswer {
  readonly places: readonly Place[];
  readonly what: string;
  readonly where: string;
  readonly area: PlacesArea | null;
  readonly matchedBy: 'category' | 'name';
  /** The filters used: `amenity=cafe`, `name~Joe's`. */
  readonly tags: readonly string[];
  readonly attribution: PlacesAttribution;
  /** `osm3s.timestamp_osm_base`: the data's date; null when Overpass was not asked. */
  readonly dataTimestamp: string | null;
  readonly warnings: readonly string[];
  readonly stats: { readonly elements: number; readonly unnamed: number; readonly returned: number };
}

export interface PlacesDeps {
  readonly nominatim: NominatimClient;
  readonly overpass: OverpassClient;
  readonly state: State;
  /** Time for the whole search: Nominatim (its turn included) and Overpass. */
  readonly timeoutMs: number;
  readonly signal?: AbortSignal;
}

const CACHE_PREFIX = 'places:cache:';
export const PLACES_CACHE_TTL_MS = 60 * 60 * 1000;
const NOMINATIM_RESULTS = 5;

function attribution(notice: string | null): PlacesAttribution {
  return { text: '© OpenStreetMap contributors', license: 'ODbL-1.0', url: 'https://www.openstreetmap.org/copyright', notice };
}

function matchOf(what: string): PlaceMatch {
  const category = categoryOf(what);
  return category ? { by: 'category', category } : { by: 'name', text: nameText(what) };
}

function cacheKey(question: PlacesQuestion, deps: PlacesDeps): string {
  const { split, country, lang, limit } = question;
  const normal = [deps.nominatim.endpoint, deps.overpass.endpoint, split.what.toLowerCase(), split.where.toLowerCase(), split.near, country, lang?.toLowerCase() ?? null, limit];
  return CACHE_PREFIX + createHash('sha256').update(JSON.stringify(normal)).digest('hex');
}

async function cachedAnswer(state: State, key: string): Promise<PlacesAnswer | null> {
  const raw = await state.get(key);
  if (raw === null) return null;
  try {
    const value: unknown = JSON.parse(raw);
    return typeof value === 'object' && value !== null && Array.isArray((value as { places?: unknown }).places) ? (value as PlacesAnswer) : null;
  } catch {
    return null;
  }
}

function areaOf(place: NominatimPlace, scope: SearchScope): PlacesArea {
  return {
    name: place.name,
    displayName: place.displayName,
    osm: { type: place.osmType, id: place.osmId },
    coordinates: { lat: place.lat, lon: place.lon },
    boundingBox: place.boundingBox,
    searchedAs: scope.kind,
    radiusM: scope.kind === 'around' ? scope.radiusM : null,
  };
}

/** Places of the Overpass answer: the named ones in Overpass's order, at most `limit`. */
function placesFrom(answer: OverpassAnswer, question: PlacesQuestion, countryHint: string | null): { places: Place[]; unnamed: number } {
  const named = answer.elements.map((e) => placeOf(e, question.lang, countryHint));
  const places = named.filter((p): p is Place => p !== null);
  return { places: places.slice(0, question.limit), unnamed: named.length - places.length };
}

/** What an answer says before Overpass is asked. */
type AnswerHead = Pick<PlacesAnswer, 'what' | 'where' | 'matchedBy' | 'tags'>;

function unknownWhere(head: AnswerHead, warnings: readonly string[]): PlacesAnswer {
  return {
    ...head,
    places: [],
    area: null,
    attribution: attribution(null),
    dataTimestamp: null,
    warnings: [...warnings, `Nominatim knows no place called "${head.where}"; nothing was searched`],
    stats: { elements: 0, unnamed: 0, returned: 0 },
  };
}

function listedAnswer(head: AnswerHead, warnings: readonly string[], place: NominatimPlace, scope: SearchScope, listed: OverpassAnswer, question: PlacesQuestion, maxElements: number): PlacesAnswer {
  const { places, unnamed } = placesFrom(listed, question, place.address.country_code ?? question.country);
  const capped = listed.elements.length >= maxElements ? [`Overpass was asked for at most ${maxElements} elements and gave that many: there may be more places`] : [];
  return {
    ...head,
    places,
    area: areaOf(place, scope),
    attribution: attribution(place.licence ?? listed.copyright),
    dataTimestamp: listed.timestampOsmBase,
    warnings: [...warnings, ...capped, ...listed.warnings],
    stats: { elements: listed.elements.length, unnamed, returned: places.length },
  };
}

/** The answer, and whether it may be cached (not when Overpass flagged it partial). */
async function answerOf(question: PlacesQuestion, deps: PlacesDeps): Promise<{ answer: PlacesAnswer; cacheable: boolean }> {
  const deadline = Date.now() + deps.timeoutMs;
  const left = () => Math.max(1, deadline - Date.now());
  const { split } = question;
  const match = matchOf(split.what);
  const head: AnswerHead = { what: split.what, where: split.where, matchedBy: match.by, tags: tagsOf(match) };
  const warnings = split.ignoredWhere ? [`the query's "in ${split.ignoredWhere}" was ignored: \`location\` says where`] : [];
  const found = await deps.nominatim.search(
    { q: split.where, countrycodes: question.country ?? undefined, acceptLanguage: question.lang ?? undefined, limit: NOMINATIM_RESULTS },
    { timeoutMs: left(), signal: deps.signal },
  );
  const place = bestPlace(found);
  if (!place) return { answer: unknownWhere(head, warnings), cacheable: true };
  const scope = scopeOf(place, split.near);
  const maxElements = maxElementsFor(question.limit);
  const ql = overpassQuery(match, scope, { timeoutS: left() / 1000, maxElements });
  const listed = await deps.overpass.query(ql, { timeoutMs: left(), signal: deps.signal });
  return { answer: listedAnswer(head, warnings, place, scope, listed, question, maxElements), cacheable: listed.warnings.length === 0 };
}

/**
 * Answers a places question (POST /v1/places/search's body). Throws PlacesInputError for a
 * question that says nowhere or is malformed, and the clients' ServiceErrors.
 */
export async function searchPlaces(request: Readonly<Record<string, unknown>>, deps: PlacesDeps): Promise<PlacesAnswer> {
  const question = readQuestion(request);
  const key = cacheKey(question, deps);
  const cached = await cachedAnswer(deps.state, key);
  if (cached) return cached;
  const { answer, cacheable } = await answerOf(question, deps);
  if (cacheable) await deps.state.set(key, JSON.stringify(answer), PLACES_CACHE_TTL_MS);
  return answer;
}
