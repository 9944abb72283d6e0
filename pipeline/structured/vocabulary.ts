/**
 * The little schema.org knowledge filling needs, as tables (pipeline/structured/fill.ts):
 *
 * - `isSubtype` (the type table is schema-org.ts, shared with the markup reader): a
 *   template's `Article` takes a `NewsArticle`, `Organization` a `Restaurant`;
 * - `FURNITURE`: types that describe the site, not the page's subject (breadcrumbs, search
 *   boxes, navigation): never the "main" thing of a caller's schema;
 * - `SYNONYMS`: what a caller's field name (or a word of it, or of its description) means as
 *   schema.org property paths — `title` → `headline`, `name`; `price` → `offers.price` …;
 *   keys are normalised (lower case, letters and digits only: `date_published`,
 *   `DatePublished` → `datepublished`);
 * - `TYPE_WORDS`: the plural a caller names a list field with (`products`, `jobs`) → a type;
 * - property sets that change how a value converts: dates, durations, lists.
 */

const normalisedNames = new Map<string, string>();

/** Lower case, letters and digits only: how field names, property names and synonyms compare (answers kept, up to 10,000). */
export function norm(name: string): string {
  let out = normalisedNames.get(name);
  if (out === undefined) {
    out = name.toLowerCase().replace(/[^a-z0-9]/g, '');
    if (normalisedNames.size < 10_000 && name.length <= 200) normalisedNames.set(name, out);
  }
  return out;
}

export { isSubtype } from './schema-org.js';

/** Types that describe the site or the page's furniture, never the page's subject. */
export const FURNITURE: ReadonlySet<string> = new Set([
  'BreadcrumbList', 'ListItem', 'SearchAction', 'EntryPoint', 'SiteNavigationElement', 'WPHeader', 'WPFooter', 'WPSideBar',
  'ReadAction', 'WebSite', 'ImageObject', 'Rating', 'AggregateRating',
]);

/**
 * Field name → schema.org paths, tried in order. Paths name a property and, after a dot, a
 * property of the thing it holds (`offers.price`: the `price` of the `offers` Offer). A value
 * that is a Person, Organization or Brand converts to its name in a text field, so `author`
 * serves both a text field and an object one.
 */
const SYNONYM_ROWS: ReadonlyArray<readonly [readonly string[], readonly string[]]> = [
  [['title', 'headline', 'heading'], ['headline', 'name']],
  [['name'], ['name', 'headline']],
  [['published', 'publishdate', 'publisheddate', 'publishedat', 'publishedon', 'publicationdate', 'pubdate', 'date', 'datepublished', 'posted', 'postedat', 'dateposted', 'postdate'], ['datePublished', 'datePosted', 'dateCreated', 'uploadDate']],
  [['created', 'createdat', 'datecreated', 'creationdate'], ['dateCreated', 'datePublished']],
  [['updated', 'updatedat', 'modified', 'modifiedat', 'lastmodified', 'lastupdated', 'datemodified', 'updatedate'], ['dateModified']],
  [['author', 'authors', 'byline', 'writer', 'writers', 'creator', 'by'], ['author', 'creator']],
  [['price', 'cost', 'amount', 'currentprice', 'saleprice'], ['offers.price', 'offers.lowPrice', 'offers.priceSpecification.price', 'price', 'lowPrice']],
  [['lowprice', 'minprice', 'pricefrom'], ['offers.lowPrice', 'offers.price', 'lowPrice']],
  [['highprice', 'maxprice', 'priceto'], ['offers.highPrice', 'highPrice']],
  [['currency', 'pricecurrency', 'currencycode'], ['offers.priceCurrency', 'offers.priceSpecification.priceCurrency', 'priceCurrency', 'baseSalary.currency', 'currency']],
  [['stock', 'instock', 'availability', 'available', 'isavailable', 'stockstatus'], ['offers.availability', 'availability']],
  [['rating', 'stars', 'averagerating', 'avgrating', 'score', 'ratingvalue'], ['aggregateRating.ratingValue', 'reviewRating.ratingValue', 'ratingValue']],
  [['bestrating', 'maxrating', 'ratingscale', 'outof'], ['reviewRating.bestRating', 'aggregateRating.bestRating', 'bestRating']],
  [['reviews', 'review'], ['review', 'aggregateRating.reviewCount', 'aggregateRating.ratingCount']],
  [['reviewcount', 'numreviews', 'reviewscount', 'numberofreviews', 'ratingcount', 'ratingscount', 'numratings'], ['aggregateRating.reviewCount', 'aggregateRating.ratingCount']],
  [['image', 'images', 'photo', 'photos', 'picture', 'pictures', 'thumbnail', 'thumbnailurl', 'imageurl', 'img', 'leadimage', 'heroimage'], ['image', 'thumbnailUrl', 'photo']],
  [['description', 'summary', 'abstract', 'excerpt', 'standfirst', 'blurb', 'teaser', 'intro'], ['description', 'abstract']],
  [['body', 'content', 'text', 'articlebody', 'reviewbody', 'fulltext'], ['articleBody', 'reviewBody', 'text', 'description']],
  [['company', 'employer', 'hiringorganization', 'companyname', 'hiringcompany'], ['hiringOrganization', 'worksFor', 'publisher']],
  [['publisher', 'organization', 'organisation', 'source'], ['publisher', 'sourceOrganization']],
  [['ingredients', 'ingredient', 'recipeingredient', 'recipeingredients'], ['recipeIngredient', 'ingredients']],
  [['steps', 'step', 'instructions', 'directions', 'method', 'recipeinstructions'], ['recipeInstructions', 'step']],
  [['address', 'location', 'postaladdress', 'fulladdress'], ['address', 'location.address', 'jobLocation.address', 'location']],
  [['venue', 'place'], ['location.name', 'location']],
  [['city', 'town', 'locality'], ['address.addressLocality', 'addressLocality', 'location.address.addressLocality', 'jobLocation.address.addressLocality']],
  [['street', 'streetaddress'], ['address.streetAddress', 'streetAddress']],
  [['postalcode', 'zip', 'zipcode', 'postcode'], ['address.postalCode', 'postalCode']],
  [['region', 'state', 'province', 'county'], ['address.addressRegion', 'addressRegion']],
  [['country', 'countrycode'], ['address.addressCountry', 'addressCountry']],
  [['phone', 'telephone', 'phonenumber', 'tel', 'mobile'], ['telephone', 'contactPoint.telephone']],
  [['email', 'mail', 'emailaddress', 'contactemail'], ['email', 'contactPoint.email']],
  [['brand', 'manufacturer', 'make', 'maker', 'brandname'], ['brand', 'manufacturer']],
  [['url', 'link', 'href', 'permalink', 'website', 'homepage', 'canonicalurl'], ['url', 'mainEntityOfPage']],
  [['keywords', 'tags', 'topics', 'keyword', 'tag'], ['keywords']],
  [['category', 'categories', 'section', 'genre'], ['articleSection', 'category', 'recipeCategory', 'genre']],
  [['language', 'lang', 'locale', 'inlanguage'], ['inLanguage']],
  [['sku', 'productcode', 'itemnumber', 'articlenumber', 'productid'], ['sku', 'mpn', 'productID']],
  [['gtin', 'ean', 'upc', 'barcode', 'isbn'], ['gtin13', 'gtin', 'gtin12', 'gtin14', 'gtin8', 'isbn']],
  [['mpn', 'partnumber', 'modelnumber'], ['mpn', 'model']],
  [['salary', 'salarymin', 'minsalary', 'salaryfrom', 'pay', 'compensation'], ['baseSalary.value.minValue', 'baseSalary.value.value', 'baseSalary.minValue', 'baseSalary.value']],
  [['salarymax', 'maxsalary', 'salaryto'], ['baseSalary.value.maxValue', 'baseSalary.value.value', 'baseSalary.maxValue', 'baseSalary.value']],
  [['salarycurrency'], ['baseSalary.currency', 'salaryCurrency']],
  [['employmenttype', 'jobtype', 'contracttype'], ['employmentType']],
  [['jobtitle', 'position', 'role'], ['title', 'jobTitle', 'name']],
  [['start', 'startdate', 'startat', 'starts', 'begins', 'startdatetime', 'starttime'], ['startDate']],
  [['end', 'enddate', 'endat', 'ends', 'enddatetime', 'endtime'], ['endDate']],
  [['validthrough', 'deadline', 'closingdate', 'expires', 'expiry'], ['validThrough', 'expires']],
  [['organizer', 'organiser', 'host'], ['organizer']],
  [['performer', 'performers', 'artist', 'artists'], ['performer']],
  [['logo'], ['logo']],
  [['sameas', 'socialprofiles', 'socials', 'sociallinks', 'profiles', 'social'], ['sameAs']],
  [['founded', 'foundingdate', 'foundedyear', 'yearfounded', 'founding'], ['foundingDate']],
  [['servings', 'yield', 'recipeyield', 'serves', 'portions'], ['recipeYield', 'yield']],
  [['calories', 'kcal', 'energy'], ['nutrition.calories']],
  [['preptime', 'preparationtime', 'preptimeminutes'], ['prepTime']],
  [['cooktime', 'cookingtime', 'cooktimeminutes'], ['cookTime']],
  [['totaltime', 'totaltimeminutes', 'readytime'], ['totalTime']],
  [['duration', 'length', 'runtime'], ['duration', 'totalTime', 'timeRequired']],
  [['itemreviewed', 'reviewed', 'subject'], ['itemReviewed']],
  [['reviewer'], ['author']],
  [['color', 'colour'], ['color']],
  [['weight'], ['weight']],
  [['model'], ['model']],
  [['condition'], ['itemCondition']],
  [['wordcount', 'words'], ['wordCount']],
  [['offers', 'offer', 'prices', 'variants'], ['offers']],
  [['cuisine'], ['recipeCuisine']],
  [['legalname'], ['legalName', 'name']],
  [['openinghours', 'hours', 'openinghoursspecification'], ['openingHours', 'openingHoursSpecification']],
  [['latitude', 'lat'], ['geo.latitude', 'latitude']],
  [['longitude', 'lng', 'lon', 'long'], ['geo.longitude', 'longitude']],
  [['video', 'videos'], ['video']],
  [['comments', 'commentcount'], ['commentCount', 'comment']],
];

export const SYNONYMS: ReadonlyMap<string, readonly string[]> = new Map(SYNONYM_ROWS.flatMap(([keys, paths]) => keys.map((k) => [k, paths] as const)));

/** Words of a name or description that only say "a value" and lose to any more specific word. */
export const GENERIC_WORDS: ReadonlySet<string> = new Set(['name', 'title', 'value', 'text', 'url', 'link', 'date', 'number', 'amount', 'id', 'code', 'type', 'list', 'data', 'info', 'details', 'main', 'full', 'total', 'current', 'primary', 'the', 'of', 'a', 'an', 'and', 'or', 'in', 'for', 'is', 'to', 'on', 'at', 'by', 'its', 'this', 'page', 'item', 'items']);

/** A list field's name, singular or plural → the type of the things it lists. */
export const TYPE_WORDS: ReadonlyMap<string, string> = new Map([
  ['products', 'Product'], ['product', 'Product'], ['offers', 'Offer'], ['offer', 'Offer'],
  ['reviews', 'Review'], ['review', 'Review'], ['jobs', 'JobPosting'], ['jobpostings', 'JobPosting'], ['positions', 'JobPosting'],
  ['openings', 'JobPosting'], ['events', 'Event'], ['recipes', 'Recipe'], ['articles', 'Article'], ['posts', 'Article'],
  ['stories', 'Article'], ['news', 'Article'], ['people', 'Person'], ['persons', 'Person'], ['authors', 'Person'],
  ['organizations', 'Organization'], ['companies', 'Organization'], ['businesses', 'LocalBusiness'], ['places', 'Place'],
  ['locations', 'Place'], ['videos', 'VideoObject'], ['faqs', 'Question'], ['questions', 'Question'], ['courses', 'Course'],
  ['books', 'Book'], ['movies', 'Movie'],
]);

/** Properties whose values are dates: a text field filled from them is read as a date. */
export const DATE_PROPERTIES: ReadonlySet<string> = new Set(['datePublished', 'dateModified', 'dateCreated', 'datePosted', 'uploadDate', 'startDate', 'endDate', 'validThrough', 'validFrom', 'priceValidUntil', 'foundingDate', 'birthDate', 'deathDate', 'expires', 'dissolutionDate', 'availabilityStarts', 'availabilityEnds', 'releaseDate', 'dateIssued']);

/** Properties whose values are ISO 8601 durations (`PT1H20M`). */
export const DURATION_PROPERTIES: ReadonlySet<string> = new Set(['prepTime', 'cookTime', 'totalTime', 'performTime', 'duration', 'timeRequired']);

/** Properties whose several values are one text's parts: a text field joins them, one per line. */
export const LIST_PROPERTIES: ReadonlySet<string> = new Set(['recipeIngredient', 'ingredients', 'recipeInstructions', 'step', 'itemListElement']);

/** Offer availability members → whether the item can be had now (a boolean field). */
export const AVAILABILITY: ReadonlyMap<string, boolean> = new Map([
  ['instock', true], ['instoreonly', true], ['onlineonly', true], ['limitedavailability', true], ['presale', true], ['madetoorder', true],
  ['outofstock', false], ['soldout', false], ['discontinued', false], ['preorder', false], ['backorder', false], ['reserved', false],
]);

/** The words of a field name or a description: `publishedAt`, `published_at`, `Published at` → `published`, `at`. */
export function wordsOf(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .split(/[^A-Za-z0-9]+/)
    .map((w) => w.toLowerCase())
    .filter(Boolean);
}

const DATE_WORDS = new Set(['date', 'datetime', 'timestamp', 'published', 'updated', 'modified', 'created', 'posted', 'deadline', 'expires', 'expiry']);

/** Whether a field's name says it holds a date: `publishedAt`, `date_posted`, `lastUpdated`, `validThrough`. */
export function isDateName(name: string): boolean {
  const words = wordsOf(name);
  const last = words[words.length - 1];
  if (words.length > 1 && (last === 'at' || last === 'on')) return true;
  if (norm(name) === 'validthrough' || norm(name) === 'validfrom') return true;
  return words.some((w) => DATE_WORDS.has(w));
}

/** The time unit a number field's name gives (`prepTimeMinutes` → minutes), or null. */
export function durationUnit(name: string): 'minutes' | 'hours' | 'seconds' | null {
  const words = wordsOf(name);
  const last = words[words.length - 1] ?? '';
  if (['minutes', 'minute', 'mins', 'min'].includes(last)) return 'minutes';
  if (['hours', 'hour', 'hrs'].includes(last)) return 'hours';
  if (['seconds', 'second', 'secs', 'sec'].includes(last)) return 'seconds';
  return null;
}

/** Whether a number field's name asks for a year (`foundedYear`, `year_founded`). */
export const isYearName = (name: string): boolean => wordsOf(name).includes('year');
