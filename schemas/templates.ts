/**
 * Named extraction templates: ready-made JSON Schemas for common page kinds, usable as
 * `template` in the `json` format and in POST /v1/extract, and listed by GET /v1/templates.
 * `schemaOrgTypes` names the schema.org types whose structured markup on a page is read
 * first, before the page text.
 */
export interface ExtractionTemplate {
  readonly name: string;
  readonly description: string;
  readonly schemaOrgTypes: readonly string[];
  readonly schema: {
    readonly type: 'object';
    readonly properties: Readonly<Record<string, Readonly<Record<string, unknown>>>>;
    readonly required: readonly string[];
  };
}

const str = (description: string) => ({ type: 'string', description });
const num = (description: string) => ({ type: 'number', description });
const strList = (description: string) => ({ type: 'array', items: { type: 'string' }, description });

export const TEMPLATES: readonly ExtractionTemplate[] = [
  {
    name: 'product',
    description: 'A product page of a store.',
    schemaOrgTypes: ['Product', 'Offer', 'AggregateOffer'],
    schema: {
      type: 'object',
      properties: {
        name: str('Product name.'),
        brand: str('Brand or maker.'),
        sku: str('Stock keeping unit or other product code.'),
        price: num('Current price as a number.'),
        currency: str('ISO 4217 currency code of the price.'),
        availability: str('In stock, out of stock, preorder…'),
        description: str('Product description.'),
        images: strList('Absolute image URLs.'),
        rating: num('Average rating.'),
        reviewCount: num('Number of reviews.'),
      },
      required: ['name'],
    },
  },
  {
    name: 'article',
    description: 'A news article or blog post.',
    schemaOrgTypes: ['Article', 'NewsArticle', 'BlogPosting'],
    schema: {
      type: 'object',
      properties: {
        title: str('Headline.'),
        author: strList('Author names.'),
        publishedAt: str('Publication date-time (RFC 3339).'),
        modifiedAt: str('Last modification date-time (RFC 3339).'),
        summary: str('One-paragraph summary or standfirst.'),
        section: str('Section or category.'),
        tags: strList('Tags or keywords.'),
        image: str('Lead image URL.'),
      },
      required: ['title'],
    },
  },
  {
    name: 'jobPosting',
    description: 'A job advertisement.',
    schemaOrgTypes: ['JobPosting'],
    schema: {
      type: 'object',
      properties: {
        title: str('Job title.'),
        company: str('Hiring organisation.'),
        location: str('Where the job is, or "remote".'),
        employmentType: str('Full-time, part-time, contract…'),
        salaryMin: num('Lowest salary offered.'),
        salaryMax: num('Highest salary offered.'),
        salaryCurrency: str('ISO 4217 currency code.'),
        postedAt: str('Date posted (RFC 3339).'),
        validThrough: str('Closing date (RFC 3339).'),
        description: str('Job description.'),
        applyUrl: str('Where to apply.'),
      },
      required: ['title'],
    },
  },
  {
    name: 'recipe',
    description: 'A cooking recipe.',
    schemaOrgTypes: ['Recipe'],
    schema: {
      type: 'object',
      properties: {
        name: str('Recipe name.'),
        ingredients: strList('Ingredients, one per item.'),
        instructions: strList('Steps in order.'),
        prepTimeMinutes: num('Preparation time.'),
        cookTimeMinutes: num('Cooking time.'),
        servings: num('Number of servings.'),
        calories: num('Calories per serving.'),
      },
      required: ['name', 'ingredients'],
    },
  },
  {
    name: 'event',
    description: 'An event listing.',
    schemaOrgTypes: ['Event'],
    schema: {
      type: 'object',
      properties: {
        name: str('Event name.'),
        startAt: str('Start date-time (RFC 3339).'),
        endAt: str('End date-time (RFC 3339).'),
        venue: str('Venue name.'),
        address: str('Venue address.'),
        organizer: str('Organiser.'),
        price: num('Ticket price.'),
        currency: str('ISO 4217 currency code.'),
        url: str('Ticket or details URL.'),
      },
      required: ['name'],
    },
  },
  {
    name: 'organization',
    description: 'A company or organisation page (about, contact).',
    schemaOrgTypes: ['Organization', 'Corporation', 'LocalBusiness'],
    schema: {
      type: 'object',
      properties: {
        name: str('Organisation name.'),
        description: str('What it does.'),
        email: str('Contact email.'),
        phone: str('Contact phone.'),
        address: str('Postal address.'),
        foundedYear: num('Year founded.'),
        socialProfiles: strList('Social profile URLs.'),
        logo: str('Logo URL.'),
      },
      required: ['name'],
    },
  },
  {
    name: 'review',
    description: 'A review of a product, place or work.',
    schemaOrgTypes: ['Review'],
    schema: {
      type: 'object',
      properties: {
        itemReviewed: str('What is reviewed.'),
        author: str('Reviewer.'),
        rating: num('Rating given.'),
        bestRating: num('Highest possible rating.'),
        body: str('Review text.'),
        publishedAt: str('Date (RFC 3339).'),
      },
      required: ['body'],
    },
  },
];

export function findTemplate(name: string): ExtractionTemplate | undefined {
  return TEMPLATES.find((t) => t.name === name);
}
