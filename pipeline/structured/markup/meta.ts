/**
 * The page's Open Graph, Twitter card and plain meta tags → one thing (`source: 'meta'`),
 * built only when at least one of the tags below is present (a `<title>` alone is not
 * structured data). Keys are matched case-insensitively on `property` or `name` (sites use
 * both); the first tag of a key wins where one value is wanted. Only present properties:
 *
 * | property | from (first found) |
 * |---|---|
 * | type | `og:type`: `article`→Article, `product*`→Product, `book`→Book, `profile`→Person, `video.*`→VideoObject, `music.*`→MusicRecording, else WebPage |
 * | name (+ headline, except on Product and Person) | `og:title`, `twitter:title`, `<title>` |
 * | description | `og:description`, `twitter:description`, `description` |
 * | image (all, absolute) | `og:image` + `og:image:url`, else `og:image:secure_url`, else `twitter:image(:src)` |
 * | url | `og:url`, `<link rel=canonical>` |
 * | author (Person things) | `article:author`, `author`, `dc.creator`, `parsely-author`, `sailthru.author`: a URL → `{url}`, else `{name}` |
 * | datePublished | `article:published_time`, `og:published_time`, `date`, `dc.date`, `dc.date.issued`, `dcterms.issued`, `dcterms.date`, `parsely-pub-date`, `sailthru.date`, `pubdate`, `publishdate` |
 * | dateModified | `article:modified_time`, `og:updated_time`, `dc.date.modified`, `dcterms.modified` |
 * | keywords (each) | `keywords`, `news_keywords` (split at commas), `article:tag` |
 * | articleSection | `article:section` |
 * | inLanguage | `og:locale` (`en_US` → `en-US`), `<html lang>` |
 * | offers (an Offer) | price from `product:price:amount`/`og:price:amount`, priceCurrency from `…:currency`, availability from `product:availability`/`og:availability` (`instock`, `in stock`, `oos`… → `InStock`, `OutOfStock`…) |
 * | publisher (an Organization) | `og:site_name` |
 */
import type { Element } from 'domhandler';
import type { Thing } from '../types.js';
import type { MarkupScan } from './scan.js';
import { elementText, normalizeText, ThingBuilder } from './values.js';

const TITLE = ['og:title', 'twitter:title'];
const DESCRIPTION = ['og:description', 'twitter:description', 'description'];
const IMAGE = ['og:image', 'og:image:url'];
const IMAGE_SECURE = ['og:image:secure_url'];
const IMAGE_TWITTER = ['twitter:image', 'twitter:image:src'];
const AUTHOR = ['article:author', 'author', 'dc.creator', 'parsely-author', 'sailthru.author'];
const PUBLISHED = [
  'article:published_time', 'og:published_time', 'date', 'dc.date', 'dc.date.issued', 'dcterms.issued', 'dcterms.date',
  'parsely-pub-date', 'sailthru.date', 'pubdate', 'publishdate',
];
const MODIFIED = ['article:modified_time', 'og:updated_time', 'dc.date.modified', 'dcterms.modified'];
const KEYWORDS = ['keywords', 'news_keywords'];
const PRICE = ['product:price:amount', 'og:price:amount'];
const CURRENCY = ['product:price:currency', 'og:price:currency'];
const AVAILABILITY = ['product:availability', 'og:availability'];

/** Every key that makes a meta thing worth building. */
const KEYS: ReadonlySet<string> = new Set([
  'og:type', 'og:url', 'og:site_name', 'og:locale', 'article:tag', 'article:section', ...TITLE, ...DESCRIPTION, ...IMAGE, ...IMAGE_SECURE,
  ...IMAGE_TWITTER, ...AUTHOR, ...PUBLISHED, ...MODIFIED, ...KEYWORDS, ...PRICE, ...CURRENCY, ...AVAILABILITY,
]);

/** `og:availability` spellings (spaces, `_` and `-` removed, lower case) → schema.org ItemAvailability. */
const AVAILABILITIES: Readonly<Record<string, string>> = {
  instock: 'InStock',
  available: 'InStock',
  outofstock: 'OutOfStock',
  oos: 'OutOfStock',
  soldout: 'SoldOut',
  preorder: 'PreOrder',
  availablefororder: 'PreOrder',
  backorder: 'BackOrder',
  discontinued: 'Discontinued',
  limitedavailability: 'LimitedAvailability',
  onlineonly: 'OnlineOnly',
  instoreonly: 'InStoreOnly',
};

/** The tags' contents by lower-cased `property` and `name`, in document order. */
function metaValues(metas: readonly Element[]): Map<string, string[]> {
  const values = new Map<string, string[]>();
  const note = (key: string | undefined, content: string) => {
    const k = key?.trim().toLowerCase();
    if (!k || !KEYS.has(k)) return;
    const list = values.get(k);
    if (list) list.push(content);
    else values.set(k, [content]);
  };
  for (const el of metas) {
    const content = el.attribs['content']?.trim();
    if (!content) continue;
    const property = el.attribs['property'];
    const name = el.attribs['name'];
    note(property, content);
    if (name !== undefined && name.trim().toLowerCase() !== property?.trim().toLowerCase()) note(name, content);
  }
  return values;
}

function typeOf(ogType: string | undefined): string {
  const t = ogType?.trim().toLowerCase() ?? '';
  if (t === 'article') return 'Article';
  if (t === 'book') return 'Book';
  if (t === 'profile') return 'Person';
  if (t.startsWith('product')) return 'Product';
  if (t.startsWith('video.')) return 'VideoObject';
  if (t.startsWith('music.')) return 'MusicRecording';
  return 'WebPage';
}

function availability(raw: string): string {
  const key = raw.toLowerCase().replace(/[\s_-]+/g, '');
  return AVAILABILITIES[key] ?? raw;
}

const isUrl = (value: string): boolean => /^(?:https?:)?\/\//i.test(value);

/** The meta thing of a scanned page, or null when the page has none of its tags. */
export function readMeta(scan: MarkupScan, base: string): Thing | null {
  const meta = metaValues(scan.metas);
  if (!meta.size) return null;
  const first = (keys: readonly string[]): string | undefined => {
    for (const key of keys) {
      const value = meta.get(key)?.[0];
      if (value) return value;
    }
    return undefined;
  };
  const all = (keys: readonly string[]): string[] => keys.flatMap((key) => meta.get(key) ?? []);
  const b = new ThingBuilder('meta');
  const type = typeOf(first(['og:type']));
  b.addType(type);
  const text = (prop: string, value: string | undefined) => (value === undefined ? null : normalizeText(prop, value, base));

  const title = first(TITLE) ?? (scan.title ? elementText(scan.title) : undefined);
  b.add('name', text('name', title));
  if (type !== 'Product' && type !== 'Person') b.add('headline', text('headline', title));
  b.add('description', text('description', first(DESCRIPTION)));
  const images = [IMAGE, IMAGE_SECURE, IMAGE_TWITTER].map(all).find((list) => list.length) ?? [];
  for (const image of images) b.add('image', text('image', image), true);
  b.add('url', text('url', first(['og:url']) ?? scan.canonical));
  for (const author of new Set(all(AUTHOR))) b.add('author', person(author, base));
  b.add('datePublished', text('datePublished', first(PUBLISHED)));
  b.add('dateModified', text('dateModified', first(MODIFIED)));
  for (const keyword of all(KEYWORDS).flatMap((k) => k.split(','))) b.add('keywords', text('keywords', keyword), true);
  for (const tag of all(['article:tag'])) b.add('keywords', text('keywords', tag), true);
  for (const section of all(['article:section'])) b.add('articleSection', text('articleSection', section), true);
  const locale = first(['og:locale'])?.replace(/_/g, '-') ?? scan.lang;
  b.add('inLanguage', text('inLanguage', locale));
  b.add('offers', offer(first(PRICE), first(CURRENCY), first(AVAILABILITY), base));
  const site = first(['og:site_name']);
  if (site) b.add('publisher', named('Organization', 'name', site, base));
  return b.build();
}

function named(type: string, prop: string, value: string, base: string): Thing | null {
  const text = normalizeText(prop, value, base);
  if (text === null) return null;
  const b = new ThingBuilder('meta');
  b.addType(type);
  b.add(prop, text);
  return b.build();
}

const person = (author: string, base: string): Thing | null => named('Person', isUrl(author.trim()) ? 'url' : 'name', author, base);

function offer(price: string | undefined, currency: string | undefined, available: string | undefined, base: string): Thing | null {
  if (price === undefined && available === undefined) return null;
  const b = new ThingBuilder('meta');
  b.addType('Offer');
  if (price !== undefined) b.add('price', normalizeText('price', price, base));
  if (currency !== undefined) b.add('priceCurrency', normalizeText('priceCurrency', currency, base));
  if (available !== undefined) b.add('availability', normalizeText('availability', availability(available.trim()), base));
  return b.build();
}
