/**
 * The page rules: what a reader can see on a page that carries no structured markup, read
 * into one schema.org-shaped thing (`source: 'page'`). Structured markup — JSON-LD,
 * microdata, RDFa, `<meta>` tags — is the markup reader's (pipeline/structured/markup);
 * these rules never look at it: no `<script>`, no `<meta>`, no itemprop/itemscope,
 * property/typeof attributes. They read elements, class and id words, visible text,
 * `<time datetime>`, `rel="author"` links, `<address>`, `mailto:` and `tel:` links, the
 * `<html lang>` (for date order and currencies), the `<title>` (for the headline only, as a
 * last resort) and the page URL (a date in its path, its country domain).
 *
 * One walk builds a view of the page (view.ts) without changing the tree; each property is
 * one documented rule in its own file:
 *   headline, name        headline.ts   the main h1, else a title-classed heading, else <title>
 *   author                authors.ts    bylines near the headline → Person things
 *   datePublished,
 *   dateModified          dates.ts      <time>, date-classed text, short text near the
 *                                       headline (date-text.ts reads the formats), the URL
 *   description, image    content.ts    the content region's first paragraph and image
 *   offers                offer.ts      price (money.ts), currency, availability → Offer
 *   aggregateRating       rating.ts     "4.5 out of 5", stars, review counts → AggregateRating
 *   address, email,
 *   telephone             contact.ts    <address>, mailto:, tel:, contact areas
 *   sku, brand            labels.ts     "SKU: …", "Brand: …" labels
 * "Near the headline" is measured in characters of visible text (near.ts).
 *
 * types: `Product` when a price was read and the page shows another product fact (an
 * add-to-cart button, an availability, a SKU, a brand or a rating); else `Article` when an
 * author or a publication date was read next to a headline; else none. Offers are given
 * with a product only (a price on an article page is not its offer).
 *
 * Every rule reads bounded text with linear patterns, and the whole is wrapped so a page
 * the rules do not expect yields what was read so far rather than an error.
 */
import type { CheerioAPI } from 'cheerio';
import type { Thing, ThingValue } from '../../../../pipeline/structured/types.js';
import { absolute } from '../../formats/urls.js';
import { readAuthors } from './authors.js';
import { contentRegion, readDescription, readImage } from './content.js';
import { readContact } from './contact.js';
import { readDates } from './dates.js';
import { readHeadline } from './headline.js';
import { readLabelled } from './labels.js';
import { localeOf } from './money.js';
import { anchorOf } from './near.js';
import { readAvailability, readPrice } from './offer.js';
import { readRating } from './rating.js';
import { type PageView, viewOf } from './view.js';

export { cutAtSentence } from './content.js';
export { findDate, parseDateAttribute } from './date-text.js';
export { parseMoney } from './money.js';
export { titleHeadline } from './headline.js';

type Props = Record<string, ThingValue[]>;

const thing = (types: string[], props: Props): Thing => ({ types, source: 'page', props });

function set(props: Props, name: string, value: ThingValue | null | undefined): void {
  if (value === null || value === undefined || value === '') return;
  props[name] = [value];
}

/** The URL relative references resolve against: the `<base href>` (view.ts) when it is http(s), else the page's (formats/urls.ts `baseOf`, from the view's walk). */
function baseOf(view: PageView, finalUrl: string): string {
  const href = view.base?.attribs.href?.trim();
  if (href) {
    const resolved = absolute(href, finalUrl);
    if (resolved && /^https?:/i.test(resolved)) return resolved;
  }
  return finalUrl;
}

function readAll($: CheerioAPI, baseUrl: string, props: Props): string[] {
  const view = viewOf($);
  const base = baseOf(view, baseUrl);
  const headline = readHeadline(view);
  set(props, 'headline', headline?.text);
  set(props, 'name', headline?.text);
  const anchor = anchorOf(view, headline?.node ?? null);

  const region = contentRegion(view, headline?.node ?? null);
  const authors = readAuthors(view, anchor, region);
  if (authors.length) props.author = authors.map((name) => thing(['Person'], { name: [name] }));
  const dates = readDates(view, anchor, baseUrl);
  set(props, 'datePublished', dates.published);
  set(props, 'dateModified', dates.modified);
  set(props, 'description', readDescription(view, region, headline?.node ?? null));
  set(props, 'image', readImage(view, region, base));

  const labelled = readLabelled(view);
  set(props, 'sku', labelled.sku);
  set(props, 'brand', labelled.brand);
  const rating = readRating(view, anchor);
  if (rating) {
    const r: Props = {};
    set(r, 'ratingValue', rating.ratingValue);
    set(r, 'bestRating', rating.bestRating);
    set(r, 'reviewCount', rating.reviewCount);
    props.aggregateRating = [thing(['AggregateRating'], r)];
  }
  const contact = readContact(view);
  set(props, 'address', contact.address);
  set(props, 'email', contact.email);
  set(props, 'telephone', contact.telephone);

  const money = readPrice(view, anchor, localeOf(view.lang, baseUrl));
  const buying = readAvailability(view, anchor);
  const product = !!money && (buying.cart || !!buying.availability || !!labelled.sku || !!labelled.brand || !!rating);
  if (product && money) {
    const offer: Props = {};
    set(offer, 'price', money.price);
    set(offer, 'priceCurrency', money.currency);
    set(offer, 'availability', buying.availability);
    props.offers = [thing(['Offer'], offer)];
    return ['Product'];
  }
  return headline?.node && (authors.length || dates.published) ? ['Article'] : [];
}

/**
 * The facts a reader sees on the page (see the file comment). `$` is the page as
 * formats/load-html.ts loads it, untouched (this never changes it); `baseUrl` its final URL.
 */
export function readPageFacts($: CheerioAPI, baseUrl: string): Thing {
  const props: Props = {};
  let types: string[] = [];
  try {
    types = readAll($, baseUrl, props);
  } catch {
    types = [];
  }
  return thing(types, props);
}
