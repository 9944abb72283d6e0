/**
 * Places search: pipeline/search/places.ts (vocabulary, WHAT/WHERE splitting, the Overpass QL
 * it writes, tags read into places) and the OpenStreetMap clients pipeline/clients/nominatim.ts
 * and overpass.ts, against the local stand-ins of test/helpers/fake-osm.ts on 127.0.0.1 through
 * the real HTTP stack: Nominatim's one-request-a-second limiter shared in coordination state
 * (two clients, one MemoryState), our User-Agent, the caches, the ODbL attribution in every
 * answer, each failure as a ServiceError kind, and Overpass's HTTP-200 remarks.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { NominatimClient, NOMINATIM_BUCKET, type NominatimPlace } from '../../pipeline/clients/nominatim.js';
import { OverpassClient, type OverpassElement } from '../../pipeline/clients/overpass.js';
import { USER_AGENT } from '../../pipeline/clients/service-http.js';
import { MemoryState } from '../../pipeline/runtime/state/memory.js';
import {
  categoryOf,
  formatAddress,
  nameText,
  overpassQuery,
  placeOf,
  placeQueryProblem,
  PlacesInputError,
  radiusOf,
  scopeOf,
  searchPlaces,
  splitPlaceQuery,
  tagsOf,
  VOCABULARY_SIZE,
  type PlaceCategory,
  type PlacesAnswer,
} from '../../pipeline/search/places.js';
import {
  AUSTIN_AREA,
  CENTRAL_PARK_AREA,
  HOSTILE_NAME,
  NOMINATIM_LICENCE,
  OVERPASS_TIMESTAMP,
  parseQl,
  startFakeNominatim,
  startFakeOverpass,
  type FakeNominatim,
  type FakeOverpass,
} from '../helpers/fake-osm.js';
import { serviceFailure } from '../helpers/service-error.js';

const ATTRIBUTION = { text: '© OpenStreetMap contributors', license: 'ODbL-1.0', url: 'https://www.openstreetmap.org/copyright' };

const tagsFor = (what: string) => {
  const category = categoryOf(what);
  return category ? tagsOf({ by: 'category', category }) : null;
};

function nominatimPlace(overrides: Partial<NominatimPlace>): NominatimPlace {
  return {
    placeId: 1, osmType: 'relation', osmId: 113314, lat: 30.27, lon: -97.74, category: 'boundary', type: 'administrative', placeRank: 16, importance: 0.7,
    addressType: 'city', name: 'Austin', displayName: 'Austin, Texas', address: {}, boundingBox: { south: 30.1, north: 30.5, west: -97.9, east: -97.6 }, licence: null,
    ...overrides,
  };
}

describe('pipeline/search/places: vocabulary', () => {
  it('knows the common kinds of place, singular or plural, in any case, with accents or without', () => {
    expect(VOCABULARY_SIZE).toBeGreaterThanOrEqual(300);
    const expected: Record<string, string[]> = {
      cafe: ['amenity=cafe'],
      'Coffee Shops': ['amenity=cafe'],
      cafés: ['amenity=cafe'],
      COFFEE: ['amenity=cafe'],
      restaurants: ['amenity=restaurant'],
      pharmacies: ['amenity=pharmacy'],
      churches: ['amenity=place_of_worship + religion=christian'],
      'best gas stations nearby': ['amenity=fuel'],
      bookstores: ['shop=books'],
      'book shop': ['shop=books'],
      hotels: ['tourism=hotel'],
      supermarkets: ['shop=supermarket'],
      'car repair': ['shop=car_repair'],
      'bicycle shops': ['shop=bicycle'],
      gyms: ['leisure=fitness_centre'],
      parks: ['leisure=park'],
      'post offices': ['amenity=post_office'],
      'fire station': ['amenity=fire_station'],
      'place of worship': ['amenity=place_of_worship'],
      doctors: ['amenity=doctors'],
      libraries: ['amenity=library'],
      ATMs: ['amenity=atm', 'amenity=bank + atm=yes'],
      'co-working spaces': ['amenity=coworking_space'],
    };
    for (const [what, tags] of Object.entries(expected)) expect({ what, tags: tagsFor(what) }).toEqual({ what, tags });
  });

  it('reads cuisine words as restaurants (and fast food) serving that cuisine', () => {
    expect(tagsFor('pizza')).toEqual(['amenity=restaurant|fast_food + cuisine=pizza']);
    expect(tagsFor('Sushi Restaurants')).toEqual(['amenity=restaurant|fast_food + cuisine=sushi']);
    expect(tagsFor('italian food')).toEqual(['amenity=restaurant|fast_food + cuisine=italian']);
    expect(tagsFor('BBQ joints')).toEqual(['amenity=restaurant|fast_food + cuisine=barbecue|bbq']);
    expect(tagsFor('pizzerias')).toEqual(['amenity=restaurant|fast_food + cuisine=pizza']);
  });

  it('knows nothing of names, which are then searched as names', () => {
    for (const what of ["Joe's Garage", 'Houndstooth', 'xyzzy', HOSTILE_NAME, '']) expect(categoryOf(what)).toBeNull();
  });
});

describe('pipeline/search/places: WHAT and WHERE', () => {
  it('splits the query at its last "in" or "near", or takes `location`', () => {
    expect(splitPlaceQuery('coffee shops in Austin, TX', null)).toEqual({ what: 'coffee shops', where: 'Austin, TX', near: false, ignoredWhere: null });
    expect(splitPlaceQuery('sushi  near   Central Park', null)).toEqual({ what: 'sushi', where: 'Central Park', near: true, ignoredWhere: null });
    expect(splitPlaceQuery('Bed in a Box in Austin', null)).toMatchObject({ what: 'Bed in a Box', where: 'Austin' });
    expect(splitPlaceQuery('coffee shops', ' Berlin ')).toEqual({ what: 'coffee shops', where: 'Berlin', near: false, ignoredWhere: null });
    expect(splitPlaceQuery('coffee in Austin', 'Berlin')).toEqual({ what: 'coffee', where: 'Berlin', near: false, ignoredWhere: 'Austin' });
    expect(splitPlaceQuery('Bed in a Box', 'Austin')).toEqual({ what: 'Bed in a Box', where: 'Austin', near: false, ignoredWhere: null });
    expect(splitPlaceQuery('coffee shops', null).where).toBeNull();
    expect(splitPlaceQuery('in Austin', null).where).toBeNull();
  });

  it('says which field to change when the question names no place (the 422 of the gateway)', async () => {
    expect(placeQueryProblem({ query: 'coffee shops in Austin' })).toBeNull();
    expect(placeQueryProblem({ query: 'coffee shops', location: 'Austin' })).toBeNull();
    expect(placeQueryProblem({ query: 'coffee shops' })).toMatchObject({ field: 'location' });
    expect(placeQueryProblem({ query: 'coffee shops', location: '  ' })).toMatchObject({ field: 'location' });
    expect(placeQueryProblem({ query: '  ' })).toMatchObject({ field: 'query' });
    expect(placeQueryProblem({ query: 'cafes', location: 'Austin', country: 'usa' })).toMatchObject({ field: 'country' });
    expect(placeQueryProblem({ query: 'cafes', location: 'Austin', limit: 0 })).toMatchObject({ field: 'limit' });
    const state = new MemoryState({ sweepIntervalMs: 0 });
    const deps = { nominatim: new NominatimClient({ baseUrl: 'http://127.0.0.1:1', state }), overpass: new OverpassClient({ url: 'http://127.0.0.1:1/api/interpreter' }), state, timeoutMs: 1000 };
    await expect(searchPlaces({ query: 'coffee shops' }, deps)).rejects.toBeInstanceOf(PlacesInputError);
    await state.close();
  });
});

describe('pipeline/search/places: the Overpass query', () => {
  const cafe = categoryOf('cafe') as PlaceCategory;

  it('searches inside a relation or way area, around a node, and around anything asked "near"', () => {
    expect(scopeOf(nominatimPlace({}), false)).toEqual({ kind: 'area', areaId: 3_600_113_314 });
    expect(scopeOf(nominatimPlace({ osmType: 'way', osmId: 427818536, category: 'leisure' }), false)).toEqual({ kind: 'area', areaId: CENTRAL_PARK_AREA });
    expect(scopeOf(nominatimPlace({ osmType: 'node', category: 'place' }), false)).toMatchObject({ kind: 'around', lat: 30.27, lon: -97.74 });
    expect(scopeOf(nominatimPlace({ osmType: 'way', category: 'highway' }), false).kind).toBe('around');
    expect(scopeOf(nominatimPlace({}), true).kind).toBe('around');
    expect(radiusOf(null)).toBe(5000);
    expect(radiusOf({ south: 30, north: 30.0001, west: -97, east: -97 })).toBe(1000);
    expect(radiusOf({ south: 30, north: 32, west: -99, east: -96 })).toBe(25_000);
    expect(radiusOf({ south: 30.2693655, north: 30.3493655, west: -104.0606839, east: -103.9806839 })).toBeGreaterThan(5800);
  });

  it('writes JSON output, a bounded server timeout, the area or circle, the union and a capped `out center tags`', () => {
    expect(overpassQuery({ by: 'category', category: cafe }, { kind: 'area', areaId: AUSTIN_AREA }, { timeoutS: 60, maxElements: 60 })).toBe(
      ['[out:json][timeout:25];', 'area(3600113314)->.a;', '(', '  nwr["amenity"="cafe"](area.a);', ');', 'out center tags 60;'].join('\n'),
    );
    const atm = overpassQuery({ by: 'category', category: categoryOf('atm') as PlaceCategory }, { kind: 'around', radiusM: 2500.4, lat: 30.3, lon: -104.02 }, { timeoutS: 4.7, maxElements: 30 });
    expect(atm).toContain('[timeout:4];');
    expect(atm).toContain('  nwr["amenity"="atm"](around:2500,30.300000,-104.020000);\n  nwr["amenity"="bank"]["atm"="yes"](around:2500,30.300000,-104.020000);');
    const pizza = overpassQuery({ by: 'category', category: categoryOf('pizza') as PlaceCategory }, { kind: 'area', areaId: 1 }, { timeoutS: 10, maxElements: 30 });
    expect(pizza).toContain('nwr["amenity"~"^(restaurant|fast_food)$"]["cuisine"~"(^|;) *(pizza) *(;|$)"](area.a);');
  });

  it('searches an unknown WHAT by name, as a literal: a hostile name stays text', () => {
    const ql = overpassQuery({ by: 'name', text: HOSTILE_NAME }, { kind: 'area', areaId: AUSTIN_AREA }, { timeoutS: 10, maxElements: 30 });
    expect(ql).toContain('nwr["name"~"a\\\\.\\\\*\\\\(b\\\\|c\\\\)\\"\\\\]; out;",i](area.a);');
    // Read back with Overpass's own string escapes, the pattern has no bare metacharacter left
    // (the stand-in refuses any) and means the text itself.
    const parsed = parseQl(ql);
    expect(parsed.statements).toHaveLength(1);
    expect(parsed.statements[0]?.filters).toEqual([{ key: 'name', match: { kind: 'contains', text: HOSTILE_NAME }, caseInsensitive: true }]);
    expect(parsed.out).toEqual({ verbosity: 'tags', center: true, limit: 30 });
    expect(nameText(`  Joe's\n\u0000Bar\t${'x'.repeat(200)}`)).toBe(`Joe's Bar ${'x'.repeat(90)}`);
  });
});

describe('pipeline/search/places: OSM tags as places', () => {
  const element = (tags: Record<string, string>, extra: Partial<OverpassElement> = {}): OverpassElement => ({ type: 'node', id: 7, lat: 1.5, lon: 2.5, center: null, tags, ...extra });

  it('reads name, kind, address, contacts and the rest, with null for what is missing', () => {
    const place = placeOf(
      element({ amenity: 'cafe', name: 'Bennu', 'addr:housenumber': '2001', 'addr:street': 'E MLK Jr Blvd', 'addr:city': 'Austin', 'addr:state': 'TX', 'addr:postcode': '78702', 'contact:phone': '+1 512', url: 'https://bennu.example/', 'contact:email': 'hi@bennu.example', opening_hours: '24/7', cuisine: 'coffee_shop', brand: 'Bennu', wheelchair: 'yes' }),
      null,
      'us',
    );
    expect(place).toEqual({
      name: 'Bennu', category: 'cafe', kind: 'amenity',
      address: { street: 'E MLK Jr Blvd', housenumber: '2001', postcode: '78702', city: 'Austin', state: 'TX', country: null },
      formattedAddress: '2001 E MLK Jr Blvd, Austin, TX 78702',
      coordinates: { lat: 1.5, lon: 2.5 },
      phone: '+1 512', website: 'https://bennu.example/', email: 'hi@bennu.example', openingHours: '24/7', cuisine: 'coffee_shop', brand: 'Bennu', wheelchair: 'yes',
      osm: { type: 'node', id: 7 }, osmUrl: 'https://www.openstreetmap.org/node/7',
    });
    const way = placeOf(element({ shop: 'books', name: 'BookPeople', 'name:de': 'Buchleute' }, { type: 'way', id: 9, lat: null, lon: null, center: { lat: 3, lon: 4 } }), 'de-DE', null);
    expect(way).toMatchObject({ name: 'Buchleute', kind: 'shop', category: 'books', coordinates: { lat: 3, lon: 4 }, formattedAddress: null, phone: null, osmUrl: 'https://www.openstreetmap.org/way/9' });
    expect(placeOf(element({ amenity: 'parking' }), null, null)).toBeNull();
  });

  it('writes the address the way its country does', () => {
    const address = { street: 'Kurfürstenstraße', housenumber: '58', postcode: '10785', city: 'Berlin', state: null, country: 'DE' };
    expect(formatAddress(address, 'DE')).toBe('Kurfürstenstraße 58, 10785 Berlin, DE');
    expect(formatAddress({ ...address, country: null }, null)).toBe('58 Kurfürstenstraße, Berlin, 10785');
    expect(formatAddress({ street: null, housenumber: null, postcode: null, city: null, state: null, country: null }, 'us')).toBeNull();
  });
});

describe('pipeline/search/places against Nominatim and Overpass stand-ins', () => {
  let nominatim: FakeNominatim;
  let overpass: FakeOverpass;
  let states: MemoryState[] = [];

  /** Clients on `state`; by default a state of their own, so no search waits for Nominatim's turn. */
  const deps = (state = newState()) => ({
    nominatim: new NominatimClient({ baseUrl: nominatim.url, state }),
    overpass: new OverpassClient({ url: overpass.interpreterUrl }),
    state,
    timeoutMs: 5000,
  });
  function newState(): MemoryState {
    const state = new MemoryState({ sweepIntervalMs: 0 });
    states.push(state);
    return state;
  }

  beforeAll(async () => {
    [nominatim, overpass] = await Promise.all([startFakeNominatim(), startFakeOverpass()]);
  });
  afterAll(async () => {
    await Promise.all([nominatim?.close(), overpass?.close()]);
  });
  beforeEach(() => {
    for (const fake of [nominatim, overpass]) {
      fake.setMode('ok');
      fake.requests.length = 0;
    }
  });
  afterEach(async () => {
    await Promise.all(states.map((s) => s.close()));
    states = [];
  });

  it('finds the cafes of Austin by category, inside its boundary, named ones only, with the attribution', async () => {
    const answer = await searchPlaces({ query: 'coffee shops in Austin, TX', country: 'US', lang: 'en' }, deps());
    expect(answer.places.map((p) => p.name)).toEqual(['Bennu Coffee', 'Houndstooth Coffee']);
    expect(answer).toMatchObject({
      what: 'coffee shops', where: 'Austin, TX', matchedBy: 'category', tags: ['amenity=cafe'],
      area: { name: 'Austin', displayName: 'Austin, Travis County, Texas, United States', osm: { type: 'relation', id: 113314 }, coordinates: { lat: 30.2711286, lon: -97.7436995 }, searchedAs: 'area', radiusM: null },
      attribution: { ...ATTRIBUTION, notice: NOMINATIM_LICENCE },
      dataTimestamp: OVERPASS_TIMESTAMP, warnings: [], stats: { elements: 4, unnamed: 2, returned: 2 },
    });
    expect(answer.area?.boundingBox).toEqual({ south: 30.0986648, north: 30.5166255, west: -97.9367663, east: -97.5605823 });
    expect(answer.places[0]).toMatchObject({ formattedAddress: '2001 East Martin Luther King Jr Boulevard, Austin, TX 78702', phone: '+1 512-478-4700', openingHours: '24/7', coordinates: { lat: 30.2813, lon: -97.7221 } });
    expect(answer.places[1]).toMatchObject({ osm: { type: 'way', id: 2001 }, website: 'https://houndstoothcoffee.com/', coordinates: { lat: 30.2748, lon: -97.7404 } });
    const asked = nominatim.requests[0]?.query;
    expect(Object.fromEntries(asked ?? [])).toEqual({ q: 'Austin, TX', format: 'jsonv2', addressdetails: '1', limit: '5', countrycodes: 'us', 'accept-language': 'en' });
    expect(parseQl(overpass.requests[0]?.ql ?? '')).toMatchObject({ areaId: AUSTIN_AREA, out: { center: true, limit: 60 } });
    expect(parseQl(overpass.requests[0]?.ql ?? '').timeoutS).toBeLessThanOrEqual(5);
  });

  it('searches around a town mapped as a node, by cuisine, by name in the asked language, and with a limit', async () => {
    const marfa = await searchPlaces({ query: 'cafes', location: 'Marfa' }, deps());
    expect(marfa.places.map((p) => p.name)).toEqual(['Do Your Thing']);
    expect(marfa.area).toMatchObject({ searchedAs: 'around', osm: { type: 'node', id: 151436914 } });
    expect(marfa.area?.radiusM).toBeGreaterThan(5800);
    const pizza = await searchPlaces({ query: 'pizza in Austin' }, deps());
    expect(pizza.places.map((p) => [p.name, p.cuisine])).toEqual([['Home Slice Pizza', 'italian;pizza']]);
    const berlin = await searchPlaces({ query: 'Cafés in Berlin', lang: 'en' }, deps());
    expect(berlin.places).toMatchObject([{ name: 'Cafe Einstein', formattedAddress: 'Kurfürstenstraße 58, 10785 Berlin, DE', openingHours: 'Mo-Su 08:00-22:00' }]);
    const one = await searchPlaces({ query: 'coffee', location: 'Austin, Texas', limit: 1 }, deps());
    expect(one.places.map((p) => p.name)).toEqual(['Bennu Coffee']);
    expect(one.stats).toEqual({ elements: 4, unnamed: 2, returned: 1 });
  });

  it('matches an unknown WHAT by name, literally: a hostile name finds itself and nothing else', async () => {
    const answer = await searchPlaces({ query: HOSTILE_NAME, location: 'Austin' }, deps());
    expect(answer.matchedBy).toBe('name');
    expect(answer.tags).toEqual([`name~${HOSTILE_NAME}`]);
    expect(answer.places.map((p) => p.name)).toEqual([`The ${HOSTILE_NAME} Lounge`]);
    const houndstooth = await searchPlaces({ query: 'houndstooth in Austin' }, deps());
    expect(houndstooth.places.map((p) => p.name)).toEqual(['Houndstooth Coffee']);
  });

  it('answers a place Nominatim does not know with nothing and a warning, still attributed, Overpass not asked', async () => {
    const answer: PlacesAnswer = await searchPlaces({ query: 'cafes in Atlantis' }, deps());
    expect(answer).toMatchObject({ places: [], area: null, dataTimestamp: null, attribution: { ...ATTRIBUTION, notice: null }, stats: { elements: 0, unnamed: 0, returned: 0 } });
    expect(answer.warnings).toEqual(['Nominatim knows no place called "Atlantis"; nothing was searched']);
    expect(overpass.requests).toHaveLength(0);
  });

  it('caches answers: the same question asks nobody again; the same WHERE asks Nominatim no more', async () => {
    const shared = newState();
    const first = await searchPlaces({ query: 'coffee shops in Austin, TX' }, deps(shared));
    const again = await searchPlaces({ query: 'Coffee  shops in austin, tx' }, deps(shared));
    expect(again).toEqual(first);
    expect([nominatim.requests.length, overpass.requests.length]).toEqual([1, 1]);
    const books = await searchPlaces({ query: 'bookstores in Austin, TX' }, deps(shared));
    expect(books.places.map((p) => p.name)).toEqual(['BookPeople']);
    expect([nominatim.requests.length, overpass.requests.length]).toEqual([1, 2]);
  });

  it('keeps a partial Overpass answer with its remark as a warning, and does not cache it', async () => {
    overpass.setMode('remark_partial');
    const shared = newState();
    const answer = await searchPlaces({ query: 'cafes in Austin' }, deps(shared));
    expect(answer.places.map((p) => p.name)).toEqual(['Bennu Coffee', 'Houndstooth Coffee']);
    expect(answer.warnings).toEqual([expect.stringMatching(/^Overpass: runtime error: Query timed out/)]);
    expect(answer.attribution).toMatchObject(ATTRIBUTION);
    await searchPlaces({ query: 'cafes in Austin' }, deps(shared));
    expect([nominatim.requests.length, overpass.requests.length]).toEqual([1, 2]);
  });

  it('passes the services failures up as ServiceErrors', async () => {
    overpass.setMode('rate_limited');
    const error = await serviceFailure(searchPlaces({ query: 'cafes in Austin' }, deps()));
    expect([error.service, error.kind]).toEqual(['overpass', 'rate_limited']);
    nominatim.setMode('error');
    const down = await serviceFailure(searchPlaces({ query: 'cafes in Berlin' }, deps()));
    expect([down.service, down.kind]).toEqual(['nominatim', 'unavailable']);
  });
});

describe('pipeline/clients/nominatim', () => {
  let nominatim: FakeNominatim;

  beforeAll(async () => {
    nominatim = await startFakeNominatim();
  });
  afterAll(async () => {
    await nominatim?.close();
  });
  beforeEach(() => {
    nominatim.setMode('ok');
    nominatim.requests.length = 0;
  });

  it('keeps one request a second across clients sharing coordination state, and says who it is', async () => {
    const state = new MemoryState({ sweepIntervalMs: 0 });
    const one = new NominatimClient({ baseUrl: nominatim.url, state });
    const two = new NominatimClient({ baseUrl: nominatim.url, state });
    const ctx = { timeoutMs: 5000 };
    await Promise.all([one.search({ q: 'Austin' }, ctx), two.search({ q: 'Berlin' }, ctx), one.search({ q: 'Marfa' }, ctx)]);
    const arrivals = nominatim.requests.map((r) => r.atMs).sort((a, b) => a - b);
    expect(arrivals).toHaveLength(3);
    expect(arrivals[1]! - arrivals[0]!).toBeGreaterThanOrEqual(900);
    expect(arrivals[2]! - arrivals[1]!).toBeGreaterThanOrEqual(900);
    for (const request of nominatim.requests) expect(request.userAgent).toBe(USER_AGENT);
    expect(USER_AGENT).toMatch(/^web-data-service\//);
    await state.close();
  });

  it('gives up with rate_limited, asking nothing, when the next turn comes after the time allowed', async () => {
    const state = new MemoryState({ sweepIntervalMs: 0 });
    await state.takeToken(NOMINATIM_BUCKET, { capacity: 1, refillPerSecond: 1 });
    const error = await serviceFailure(new NominatimClient({ baseUrl: nominatim.url, state }).search({ q: 'Austin' }, { timeoutMs: 300 }));
    expect(error.kind).toBe('rate_limited');
    expect(error.retryAfterMs).toBeGreaterThan(300);
    expect(nominatim.requests).toHaveLength(0);
    await state.close();
  });

  it('reads jsonv2 into numbers and records, sends the contact address, and caches across clients', async () => {
    const state = new MemoryState({ sweepIntervalMs: 0 });
    const client = new NominatimClient({ baseUrl: nominatim.url, state, email: 'ops@example.org' });
    const places = await client.search({ q: 'Austin', countrycodes: 'US', limit: 2 }, { timeoutMs: 5000 });
    expect(places.map((p) => p.address.state)).toEqual(['Texas', 'Minnesota']);
    expect(places[0]).toEqual({
      placeId: expect.any(Number), osmType: 'relation', osmId: 113314, lat: 30.2711286, lon: -97.7436995, category: 'boundary', type: 'administrative', placeRank: 16, importance: 0.7819,
      addressType: 'city', name: 'Austin', displayName: 'Austin, Travis County, Texas, United States',
      address: { city: 'Austin', county: 'Travis County', state: 'Texas', 'ISO3166-2-lvl4': 'US-TX', country: 'United States', country_code: 'us' },
      boundingBox: { south: 30.0986648, north: 30.5166255, west: -97.9367663, east: -97.5605823 }, licence: NOMINATIM_LICENCE,
    });
    expect(nominatim.requests[0]?.query.get('email')).toBe('ops@example.org');
    const other = new NominatimClient({ baseUrl: nominatim.url, state });
    expect(await other.search({ q: ' austin ', countrycodes: 'us', limit: 2 }, { timeoutMs: 5000 })).toEqual(places);
    expect(nominatim.requests).toHaveLength(1);
    await state.close();
  });

  it('maps each failure onto a ServiceError kind', async () => {
    const cases = [
      { mode: 'rate_limited', kind: 'rate_limited' },
      { mode: 'error', kind: 'unavailable' },
      { mode: 'garbage', kind: 'unreadable' },
      { mode: 'hang', kind: 'timeout' },
    ] as const;
    for (const { mode, kind } of cases) {
      nominatim.setMode(mode);
      const state = new MemoryState({ sweepIntervalMs: 0 });
      const error = await serviceFailure(new NominatimClient({ baseUrl: nominatim.url, state }).search({ q: 'Austin' }, { timeoutMs: 400 }));
      expect({ mode, service: error.service, kind: error.kind }).toEqual({ mode, service: 'nominatim', kind });
      await state.close();
    }
  });
});

describe('pipeline/clients/overpass', () => {
  let overpass: FakeOverpass;
  const ql = '[out:json][timeout:5];\narea(3600113314)->.a;\n(\n  nwr["amenity"="cafe"](area.a);\n);\nout center tags 30;';

  beforeAll(async () => {
    overpass = await startFakeOverpass();
  });
  afterAll(async () => {
    await overpass?.close();
  });

  it('reads elements, the copyright and the data timestamp', async () => {
    overpass.setMode('ok');
    const answer = await new OverpassClient({ url: overpass.interpreterUrl }).query(ql, { timeoutMs: 5000 });
    expect(answer.elements.map((e) => [e.type, e.id])).toEqual([['node', 1001], ['node', 1002], ['way', 2001], ['way', 2003]]);
    expect(answer.elements[2]).toMatchObject({ lat: null, lon: null, center: { lat: 30.2748, lon: -97.7404 } });
    expect(answer).toMatchObject({ copyright: expect.stringContaining('ODbL'), timestampOsmBase: OVERPASS_TIMESTAMP, warnings: [] });
  });

  it('maps 429, overload and HTTP-200 remarks without elements onto ServiceError kinds', async () => {
    const cases = [
      { mode: 'rate_limited', kind: 'rate_limited' },
      { mode: 'error', kind: 'unavailable' },
      { mode: 'remark_timeout', kind: 'timeout' },
      { mode: 'remark_memory', kind: 'unavailable' },
      { mode: 'hang', kind: 'timeout' },
    ] as const;
    for (const { mode, kind } of cases) {
      overpass.setMode(mode);
      const error = await serviceFailure(new OverpassClient({ url: overpass.interpreterUrl }).query(ql, { timeoutMs: 400 }));
      expect({ mode, service: error.service, kind: error.kind }).toEqual({ mode, service: 'overpass', kind });
    }
  });
});
