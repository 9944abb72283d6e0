/**
 * Named extraction templates: ready-made JSON Schemas for common page kinds, usable as
 * `template` in the `json` format and in POST /v1/extract, and listed by GET /v1/templates.
 * `schemaOrgTypes` names the schema.org types whose structured markup on a page is read
 * first, before the page text (their subtypes too: `Article` takes a `NewsArticle`).
 *
 * Each template is written once, as its fields: name, JSON Schema, and `schemaOrg`, the
 * schema.org property paths the field is filled from, in order of preference (`offers.price`
 * is the `price` of the thing in `offers`; a nested Person, Organization or Brand gives its
 * name to a text field, a PostalAddress one line, an ImageObject its url; a path may end in
 * a value rule, `jobLocationType=TELECOMMUTE->remote`: that value gives that text). Filling
 * (pipeline/structured/fill.ts) converts what it finds to the field's type (ISO 8601 durations to
 * minutes, dates to RFC 3339, "€ 1.299,00" to 1299). `pageRules` lists the paths among them
 * that the page rules (actors/parser/page-data/rules, `PAGE_RULE_PROPERTIES`) read from the
 * visible page when the markup has nothing; a field without any is filled from markup or by
 * a model only. `schema`, which answers are validated against, is derived from the fields.
 */

/** One field of a template, as GET /v1/templates lists it. */
export interface TemplateField {
  readonly name: string;
  /** Its JSON Schema type (`array` fields hold strings). */
  readonly type: 'string' | 'number' | 'array';
  readonly description: string;
  readonly required: boolean;
  /** schema.org property paths it is filled from, in order of preference. */
  readonly schemaOrg: readonly string[];
  /** The paths of `schemaOrg` the page rules can fill when the markup has nothing. */
  readonly pageRules: readonly string[];
}

export interface ExtractionTemplate {
  readonly name: string;
  readonly description: string;
  readonly schemaOrgTypes: readonly string[];
  readonly fields: readonly TemplateField[];
  readonly schema: {
    readonly type: 'object';
    readonly properties: Readonly<Record<string, Readonly<Record<string, unknown>>>>;
    readonly required: readonly string[];
  };
}

/**
 * What the page rules read from the visible page (the one `page` thing of
 * actors/parser/page-data/rules): a headline, the byline's Person things, dates, the meta
 * description and lead image, a price with its currency and availability, a rating, and an
 * organisation's contacts.
 */
export const PAGE_RULE_PROPERTIES: ReadonlySet<string> = new Set([
  'headline', 'author', 'author.name', 'datePublished', 'dateModified', 'description', 'image', 'image.url',
  'offers.price', 'offers.priceCurrency', 'offers.availability', 'aggregateRating.ratingValue', 'aggregateRating.bestRating',
  'aggregateRating.reviewCount', 'address', 'email', 'telephone', 'sku', 'brand', 'brand.name',
]);

type FieldSchema = {
  readonly type: TemplateField['type'];
  readonly description: string;
  readonly items?: { readonly type: 'string' };
};

interface FieldDef {
  readonly name: string;
  readonly schema: FieldSchema;
  readonly schemaOrg: readonly string[];
  readonly required: boolean;
}

const str = (description: string): FieldSchema => ({ type: 'string', description });
const num = (description: string): FieldSchema => ({ type: 'number', description });
const strList = (description: string): FieldSchema => ({ type: 'array', items: { type: 'string' }, description });

const field = (name: string, schema: FieldSchema, schemaOrg: readonly string[]): FieldDef => ({ name, schema, schemaOrg, required: false });
const required = (name: string, schema: FieldSchema, schemaOrg: readonly string[]): FieldDef => ({ name, schema, schemaOrg, required: true });

function template(name: string, description: string, schemaOrgTypes: readonly string[], defs: readonly FieldDef[]): ExtractionTemplate {
  return {
    name,
    description,
    schemaOrgTypes,
    fields: defs.map((d) => ({
      name: d.name,
      type: d.schema.type,
      description: d.schema.description,
      required: d.required,
      schemaOrg: d.schemaOrg,
      pageRules: d.schemaOrg.filter((p) => PAGE_RULE_PROPERTIES.has(p)),
    })),
    schema: {
      type: 'object',
      properties: Object.fromEntries(defs.map((d) => [d.name, d.schema])),
      required: defs.filter((d) => d.required).map((d) => d.name),
    },
  };
}

export const TEMPLATES: readonly ExtractionTemplate[] = [
  template('product', 'A product page of a store.', ['Product', 'Offer', 'AggregateOffer'], [
    required('name', str('Product name.'), ['name', 'headline']),
    field('brand', str('Brand or maker.'), ['brand.name', 'brand', 'manufacturer.name', 'manufacturer']),
    field('sku', str('Stock keeping unit or other product code.'), ['sku', 'mpn', 'productID', 'gtin13', 'gtin']),
    field('price', num('Current price as a number.'), ['offers.price', 'offers.lowPrice', 'offers.priceSpecification.price', 'price', 'lowPrice']),
    field('currency', str('ISO 4217 currency code of the price.'), ['offers.priceCurrency', 'offers.priceSpecification.priceCurrency', 'priceCurrency']),
    field('availability', str('In stock, out of stock, preorder…'), ['offers.availability', 'availability']),
    field('description', str('Product description.'), ['description']),
    field('images', strList('Absolute image URLs.'), ['image.url', 'image']),
    field('rating', num('Average rating.'), ['aggregateRating.ratingValue']),
    field('reviewCount', num('Number of reviews.'), ['aggregateRating.reviewCount', 'aggregateRating.ratingCount']),
  ]),
  template('article', 'A news article or blog post.', ['Article', 'NewsArticle', 'BlogPosting'], [
    required('title', str('Headline.'), ['headline', 'name']),
    field('author', strList('Author names.'), ['author.name', 'author', 'creator.name', 'creator']),
    field('publishedAt', str('Publication date-time (RFC 3339).'), ['datePublished', 'dateCreated', 'uploadDate']),
    field('modifiedAt', str('Last modification date-time (RFC 3339).'), ['dateModified']),
    field('summary', str('One-paragraph summary or standfirst.'), ['description', 'abstract']),
    field('section', str('Section or category.'), ['articleSection', 'genre']),
    field('tags', strList('Tags or keywords.'), ['keywords', 'about.name']),
    field('image', str('Lead image URL.'), ['image.url', 'image', 'thumbnailUrl']),
  ]),
  template('jobPosting', 'A job advertisement.', ['JobPosting'], [
    required('title', str('Job title.'), ['title', 'name', 'headline']),
    field('company', str('Hiring organisation.'), ['hiringOrganization.name', 'hiringOrganization']),
    field('location', str('Where the job is, or "remote".'), ['jobLocation.address', 'jobLocation.name', 'jobLocationType=TELECOMMUTE->remote', 'applicantLocationRequirements.name']),
    field('employmentType', str('Full-time, part-time, contract…'), ['employmentType']),
    field('salaryMin', num('Lowest salary offered.'), ['baseSalary.value.minValue', 'baseSalary.value.value', 'baseSalary.minValue', 'baseSalary.value']),
    field('salaryMax', num('Highest salary offered.'), ['baseSalary.value.maxValue', 'baseSalary.value.value', 'baseSalary.maxValue', 'baseSalary.value']),
    field('salaryCurrency', str('ISO 4217 currency code.'), ['baseSalary.currency', 'salaryCurrency', 'baseSalary.value.currency']),
    field('postedAt', str('Date posted (RFC 3339).'), ['datePosted', 'datePublished']),
    field('validThrough', str('Closing date (RFC 3339).'), ['validThrough']),
    field('description', str('Job description.'), ['description']),
    field('applyUrl', str('Where to apply.'), ['applicationContact.url', 'potentialAction.target.urlTemplate', 'potentialAction.target', 'url']),
  ]),
  template('recipe', 'A cooking recipe.', ['Recipe'], [
    required('name', str('Recipe name.'), ['name', 'headline']),
    required('ingredients', strList('Ingredients, one per item.'), ['recipeIngredient', 'ingredients']),
    field('instructions', strList('Steps in order.'), ['recipeInstructions.text', 'recipeInstructions']),
    field('prepTimeMinutes', num('Preparation time.'), ['prepTime']),
    field('cookTimeMinutes', num('Cooking time.'), ['cookTime']),
    field('servings', num('Number of servings.'), ['recipeYield', 'yield']),
    field('calories', num('Calories per serving.'), ['nutrition.calories']),
  ]),
  template('event', 'An event listing.', ['Event'], [
    required('name', str('Event name.'), ['name', 'headline']),
    field('startAt', str('Start date-time (RFC 3339).'), ['startDate']),
    field('endAt', str('End date-time (RFC 3339).'), ['endDate']),
    field('venue', str('Venue name.'), ['location.name', 'location']),
    field('address', str('Venue address.'), ['location.address', 'address']),
    field('organizer', str('Organiser.'), ['organizer.name', 'organizer']),
    field('price', num('Ticket price.'), ['offers.price', 'offers.lowPrice', 'price']),
    field('currency', str('ISO 4217 currency code.'), ['offers.priceCurrency', 'priceCurrency']),
    field('url', str('Ticket or details URL.'), ['offers.url', 'url']),
  ]),
  template('organization', 'A company or organisation page (about, contact).', ['Organization', 'Corporation', 'LocalBusiness'], [
    required('name', str('Organisation name.'), ['name', 'legalName', 'alternateName']),
    field('description', str('What it does.'), ['description']),
    field('email', str('Contact email.'), ['email', 'contactPoint.email']),
    field('phone', str('Contact phone.'), ['telephone', 'contactPoint.telephone']),
    field('address', str('Postal address.'), ['address', 'location.address']),
    field('foundedYear', num('Year founded.'), ['foundingDate']),
    field('socialProfiles', strList('Social profile URLs.'), ['sameAs']),
    field('logo', str('Logo URL.'), ['logo.url', 'logo']),
  ]),
  template('review', 'A review of a product, place or work.', ['Review'], [
    field('itemReviewed', str('What is reviewed.'), ['itemReviewed.name', 'itemReviewed']),
    field('author', str('Reviewer.'), ['author.name', 'author']),
    field('rating', num('Rating given.'), ['reviewRating.ratingValue', 'ratingValue']),
    field('bestRating', num('Highest possible rating.'), ['reviewRating.bestRating', 'bestRating']),
    required('body', str('Review text.'), ['reviewBody', 'text', 'description']),
    field('publishedAt', str('Date (RFC 3339).'), ['datePublished', 'dateCreated']),
  ]),
];

export function findTemplate(name: string): ExtractionTemplate | undefined {
  return TEMPLATES.find((t) => t.name === name);
}
