/**
 * The places vocabulary: what a WHAT names, as OpenStreetMap tag filters (places.ts asks it;
 * places-query.ts writes its filters as Overpass QL).
 *
 * - A row's phrases (singular) name one category; its tags are `key=value/value` filters,
 *   ` + ` joining filters that must all hold, ` | ` separating alternatives. A cuisine word
 *   also reads "<word> restaurant|place|food|shop|bar|joint" and means restaurants or fast
 *   food with that `cuisine` (one of its `;` items).
 * - Looking up ignores case, accents, punctuation, a leading "best", "the", … and a trailing
 *   "nearby"; a plural last word finds its singular. A phrase defined twice stops the process
 *   at start.
 */

/** An OSM tag condition: the key has one of the values (for `cuisine`, one of its `;` items). */
export interface TagFilter {
  readonly key: string;
  readonly values: readonly string[];
}
/** Filters that must all hold; a category matches any of its selectors. */
export type TagSelector = readonly TagFilter[];

export interface PlaceCategory {
  /** The row's first phrase (`cafe`). */
  readonly name: string;
  readonly selectors: readonly TagSelector[];
}

/**
 * Phrases (comma-separated, singular; plurals of the last word are found) and their tags:
 * `key=value/value` is one filter, ` + ` joins filters, ` | ` separates alternatives.
 */
const CATEGORY_TABLE: readonly (readonly [phrases: string, tags: string])[] = [
  ['cafe, coffee, coffee shop, coffeeshop, coffee house, coffeehouse, espresso bar', 'amenity=cafe'],
  ['restaurant, eatery, diner, bistro, brasserie', 'amenity=restaurant'],
  ['food, place to eat, places to eat, somewhere to eat', 'amenity=restaurant/fast_food/food_court'],
  ['fast food, fast food restaurant, takeaway, take away, takeout', 'amenity=fast_food'],
  ['food court', 'amenity=food_court'],
  ['bar, cocktail bar, wine bar', 'amenity=bar'],
  ['pub, tavern, gastropub', 'amenity=pub'],
  ['beer garden, biergarten', 'amenity=biergarten'],
  ['nightclub, night club, disco', 'amenity=nightclub'],
  ['ice cream, ice cream parlor, ice cream parlour, ice cream shop, gelato, gelateria', 'amenity=ice_cream | shop=ice_cream'],
  ['pharmacy, drugstore, drug store, chemist, apothecary', 'amenity=pharmacy'],
  ['hospital, emergency room', 'amenity=hospital'],
  ['clinic, medical centre, medical center, health centre, health center, urgent care', 'amenity=clinic'],
  ['dentist, dental clinic, dental office', 'amenity=dentist'],
  ['doctor, doctors, physician, gp, general practitioner', 'amenity=doctors'],
  ['veterinary, vet, veterinarian, animal hospital', 'amenity=veterinary'],
  ['physiotherapist, physical therapist, physiotherapy', 'healthcare=physiotherapist'],
  ['bank', 'amenity=bank'],
  ['atm, cash machine, cashpoint', 'amenity=atm | amenity=bank + atm=yes'],
  ['bureau de change, currency exchange', 'amenity=bureau_de_change'],
  ['fuel, gas station, petrol station, filling station, service station', 'amenity=fuel'],
  ['charging station, ev charger, ev charging, electric vehicle charging', 'amenity=charging_station'],
  ['parking, car park, parking lot, parking garage', 'amenity=parking'],
  ['bicycle parking, bike parking', 'amenity=bicycle_parking'],
  ['car rental, car hire, rental car', 'amenity=car_rental'],
  ['car wash', 'amenity=car_wash'],
  ['taxi, taxi stand, taxi rank', 'amenity=taxi'],
  ['bus station, bus terminal', 'amenity=bus_station'],
  ['bus stop', 'highway=bus_stop'],
  ['train station, railway station, rail station', 'railway=station'],
  ['subway station, metro station, underground station, tube station', 'railway=station + station=subway'],
  ['airport', 'aeroway=aerodrome'],
  ['school', 'amenity=school'],
  ['kindergarten, preschool, nursery school', 'amenity=kindergarten'],
  ['childcare, daycare, day care, child care', 'amenity=childcare'],
  ['college', 'amenity=college'],
  ['university, campus', 'amenity=university'],
  ['library, public library', 'amenity=library'],
  ['cinema, movie theater, movie theatre', 'amenity=cinema'],
  ['theatre, theater, playhouse', 'amenity=theatre'],
  ['arts centre, arts center, art centre, art center', 'amenity=arts_centre'],
  ['community centre, community center', 'amenity=community_centre'],
  ['coworking, coworking space, co working space', 'amenity=coworking_space'],
  ['post office', 'amenity=post_office'],
  ['post box, mailbox, letter box', 'amenity=post_box'],
  ['police, police station', 'amenity=police'],
  ['fire station, fire department', 'amenity=fire_station'],
  ['town hall, city hall, townhall', 'amenity=townhall'],
  ['courthouse', 'amenity=courthouse'],
  ['place of worship', 'amenity=place_of_worship'],
  ['church, chapel, cathedral', 'amenity=place_of_worship + religion=christian'],
  ['mosque', 'amenity=place_of_worship + religion=muslim'],
  ['synagogue', 'amenity=place_of_worship + religion=jewish'],
  ['toilet, toilets, restroom, public toilet', 'amenity=toilets'],
  ['drinking water, water fountain', 'amenity=drinking_water'],
  ['marketplace, market, farmers market', 'amenity=marketplace'],
  ['nursing home, care home, retirement home', 'amenity=nursing_home | amenity=social_facility + social_facility=nursing_home'],
  ['recycling, recycling centre, recycling center', 'amenity=recycling'],
  ['supermarket, grocery, grocery store', 'shop=supermarket'],
  ['convenience store, convenience, corner shop, bodega, minimarket, mini market', 'shop=convenience'],
  ['bakery, bakehouse, boulangerie', 'shop=bakery'],
  ['butcher, butcher shop, butchery', 'shop=butcher'],
  ['greengrocer, fruit and vegetable shop', 'shop=greengrocer'],
  ['deli, delicatessen', 'shop=deli'],
  ['florist, flower shop', 'shop=florist'],
  ['hairdresser, hair salon, barber, barbershop, barber shop', 'shop=hairdresser'],
  ['beauty salon, nail salon, beautician', 'shop=beauty'],
  ['bookshop, bookstore, book shop, book store, books', 'shop=books'],
  ['clothes, clothing, clothes shop, clothing store, clothes store, boutique', 'shop=clothes'],
  ['shoe shop, shoe store, shoes', 'shop=shoes'],
  ['hardware store, hardware, hardware shop', 'shop=hardware'],
  ['diy store, home improvement store', 'shop=doityourself'],
  ['bicycle shop, bike shop, bicycle store, bike store, bicycle repair, bike repair', 'shop=bicycle'],
  ['car repair, auto repair, mechanic, car mechanic, auto shop', 'shop=car_repair'],
  ['car dealer, car dealership', 'shop=car'],
  ['tyre shop, tire shop', 'shop=tyres'],
  ['electronics, electronics store, electronics shop', 'shop=electronics'],
  ['mobile phone shop, phone shop, cell phone store', 'shop=mobile_phone'],
  ['computer shop, computer store', 'shop=computer'],
  ['furniture, furniture store, furniture shop', 'shop=furniture'],
  ['department store', 'shop=department_store'],
  ['mall, shopping mall, shopping centre, shopping center', 'shop=mall'],
  ['jewelry, jewellery, jeweler, jeweller, jewelry store, jewellery shop', 'shop=jewelry'],
  ['optician, optometrist, eyewear', 'shop=optician'],
  ['pet shop, pet store, pet supplies', 'shop=pet'],
  ['toy shop, toy store, toys', 'shop=toys'],
  ['gift shop, souvenir shop', 'shop=gift'],
  ['liquor store, off licence, off license, bottle shop, liquor', 'shop=alcohol'],
  ['wine shop, wine store', 'shop=wine'],
  ['laundry, laundromat, launderette, laundrette', 'shop=laundry'],
  ['dry cleaner, dry cleaning, dry cleaners', 'shop=dry_cleaning'],
  ['garden centre, garden center, plant nursery', 'shop=garden_centre'],
  ['tattoo, tattoo parlour, tattoo parlor, tattoo studio, tattoo shop', 'shop=tattoo'],
  ['sports shop, sporting goods, sports store', 'shop=sports'],
  ['music shop, music store, instrument store', 'shop=musical_instrument'],
  ['stationery, stationery shop, office supplies', 'shop=stationery'],
  ['kiosk, newsagent, newsstand', 'shop=kiosk/newsagent'],
  ['cosmetics, perfumery', 'shop=cosmetics/perfumery'],
  ['thrift store, thrift shop, charity shop, second hand shop, secondhand shop', 'shop=second_hand/charity'],
  ['tobacconist, smoke shop, tobacco shop', 'shop=tobacco'],
  ['travel agency, travel agent', 'shop=travel_agency'],
  ['copy shop, print shop', 'shop=copyshop'],
  ['hotel', 'tourism=hotel'],
  ['hostel, backpackers', 'tourism=hostel'],
  ['motel', 'tourism=motel'],
  ['guest house, guesthouse, bed and breakfast, inn', 'tourism=guest_house'],
  ['holiday apartment, vacation rental', 'tourism=apartment'],
  ['accommodation, lodging, place to stay, places to stay', 'tourism=hotel/hostel/motel/guest_house/apartment'],
  ['campsite, camp site, campground, camping', 'tourism=camp_site'],
  ['museum', 'tourism=museum'],
  ['gallery, art gallery', 'tourism=gallery'],
  ['attraction, tourist attraction, sight, sightseeing', 'tourism=attraction'],
  ['viewpoint, lookout, scenic viewpoint', 'tourism=viewpoint'],
  ['zoo', 'tourism=zoo'],
  ['aquarium', 'tourism=aquarium'],
  ['theme park, amusement park', 'tourism=theme_park'],
  ['tourist information, visitor centre, visitor center, information centre', 'tourism=information'],
  ['gym, fitness, fitness centre, fitness center, fitness studio, health club', 'leisure=fitness_centre'],
  ['park', 'leisure=park'],
  ['playground, play area', 'leisure=playground'],
  ['swimming pool, pool, public pool', 'leisure=swimming_pool | leisure=sports_centre + sport=swimming'],
  ['sports centre, sports center, leisure centre, leisure center, recreation center', 'leisure=sports_centre'],
  ['stadium, arena', 'leisure=stadium'],
  ['golf course, golf club', 'leisure=golf_course'],
  ['garden, botanical garden', 'leisure=garden'],
  ['dog park', 'leisure=dog_park'],
  ['marina', 'leisure=marina'],
  ['nature reserve', 'leisure=nature_reserve'],
  ['bowling alley, bowling', 'leisure=bowling_alley'],
  ['ice rink, skating rink', 'leisure=ice_rink'],
  ['beach', 'natural=beach'],
  ['lawyer, attorney, law firm, solicitor', 'office=lawyer'],
  ['accountant', 'office=accountant'],
  ['real estate agent, estate agent, realtor', 'office=estate_agent'],
  ['insurance, insurance agent', 'office=insurance'],
  ['embassy, consulate', 'office=diplomatic'],
  ['brewery, microbrewery', 'craft=brewery'],
  ['winery', 'craft=winery'],
  ['plumber', 'craft=plumber'],
  ['electrician', 'craft=electrician'],
];

/** Cuisine words (comma-separated) and their `cuisine` values; each also reads "<word> restaurant|place|food|shop|bar|joint". */
const CUISINE_TABLE: readonly (readonly [words: string, values: string])[] = [
  ['pizza, pizzeria', 'pizza'],
  ['sushi', 'sushi'],
  ['italian', 'italian'],
  ['chinese', 'chinese'],
  ['japanese', 'japanese'],
  ['indian', 'indian'],
  ['thai', 'thai'],
  ['mexican, taco, taqueria', 'mexican'],
  ['tex mex', 'tex-mex'],
  ['vietnamese, pho', 'vietnamese'],
  ['korean', 'korean'],
  ['french', 'french'],
  ['greek', 'greek'],
  ['turkish', 'turkish'],
  ['lebanese', 'lebanese'],
  ['spanish, tapas', 'spanish/tapas'],
  ['american', 'american'],
  ['german', 'german'],
  ['ethiopian', 'ethiopian'],
  ['mediterranean', 'mediterranean'],
  ['burger, hamburger', 'burger'],
  ['kebab, doner, doner kebab', 'kebab'],
  ['ramen', 'ramen'],
  ['noodle', 'noodle'],
  ['seafood', 'seafood'],
  ['fish and chips, chippy', 'fish_and_chips'],
  ['steak, steakhouse, steak house', 'steak_house'],
  ['barbecue, bbq', 'barbecue/bbq'],
  ['sandwich', 'sandwich'],
  ['fried chicken, chicken', 'chicken'],
];

const CUISINE_SUFFIXES = ['', ' restaurant', ' place', ' food', ' shop', ' bar', ' joint'];
const CUISINE_VENUES: TagFilter = { key: 'amenity', values: ['restaurant', 'fast_food'] };

/** Keys whose values are `;`-separated lists (`cuisine=italian;pizza`). */
export const LIST_KEYS: ReadonlySet<string> = new Set(['cuisine']);

function parseTags(spec: string): TagSelector[] {
  return spec.split(' | ').map((selector) =>
    selector.split(' + ').map((filter) => {
      const [key = '', values = ''] = filter.split('=');
      return { key, values: values.split('/') };
    }),
  );
}

const splitList = (list: string) => list.split(',').map((p) => p.trim());

/** Phrase → category, built once; a phrase defined twice stops the process at start. */
function buildVocabulary(): ReadonlyMap<string, PlaceCategory> {
  const vocabulary = new Map<string, PlaceCategory>();
  const add = (phrase: string, category: PlaceCategory) => {
    if (vocabulary.has(phrase)) throw new Error(`places vocabulary: "${phrase}" is defined twice`);
    vocabulary.set(phrase, category);
  };
  for (const [phrases, tags] of CATEGORY_TABLE) {
    const list = splitList(phrases);
    const category = { name: list[0] as string, selectors: parseTags(tags) };
    for (const phrase of list) add(phrase, category);
  }
  for (const [words, values] of CUISINE_TABLE) {
    const list = splitList(words);
    const category = { name: `${list[0]} restaurant`, selectors: [[CUISINE_VENUES, { key: 'cuisine', values: values.split('/') }]] };
    for (const word of list) for (const suffix of CUISINE_SUFFIXES) add(word + suffix, category);
  }
  return vocabulary;
}

const VOCABULARY = buildVocabulary();

/** How many phrases the vocabulary knows. */
export const VOCABULARY_SIZE = VOCABULARY.size;

/** Words in front of a WHAT that do not change it. */
const FILLERS = new Set(['the', 'a', 'an', 'some', 'any', 'all', 'best', 'good', 'great', 'top', 'cheap', 'nice', 'local', 'popular', 'nearby']);

/** Lower case, accents off, punctuation as spaces; leading fillers and a trailing "nearby" dropped. */
export function lookupWords(what: string): string[] {
  const words = what.normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase().split(/[^\p{L}\p{N}]+/u).filter(Boolean);
  while (words.length > 1 && FILLERS.has(words[0] as string)) words.shift();
  if (words.length > 1 && words[words.length - 1] === 'nearby') words.pop();
  return words;
}

/** The word and its possible singulars: `pharmacies` → `pharmacy`, `churches` → `church`, `cafes` → `cafe`. */
function singulars(word: string): string[] {
  const out = [word];
  if (word.endsWith('ies')) out.push(`${word.slice(0, -3)}y`);
  if (word.endsWith('es')) out.push(word.slice(0, -2));
  if (word.endsWith('s')) out.push(word.slice(0, -1));
  return out;
}

/** The category a WHAT names, or null (then places are searched by name). */
export function categoryOf(what: string): PlaceCategory | null {
  const words = lookupWords(what);
  const last = words.pop();
  if (last === undefined) return null;
  for (const form of singulars(last)) {
    const hit = VOCABULARY.get([...words, form].join(' '));
    if (hit) return hit;
  }
  return null;
}
