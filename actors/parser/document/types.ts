/**
 * The parser's input and output shapes, defined once. A scrape document uses Firecrawl v1's
 * field names (see shared/design/reference-shapes.md) inside our `{success, data}` envelope.
 *
 * When the gateway's response schema for a scrape document lands in `schemas/api/`, these
 * interfaces should be derived from it (Static<typeof …>) instead of written by hand.
 */
import type { ScrapeOptions } from '../../../schemas/api/scrape-options.js';

/** One fetched response, as the fetcher (or renderer) hands it over. */
export interface DocumentInput {
  readonly bytes: Buffer;
  /** The Content-Type header as received, e.g. `text/html; charset=windows-1251`. */
  readonly contentType: string;
  /** The URL that was requested (`metadata.sourceURL`). */
  readonly url: string;
  /** The URL after redirects (`metadata.url`); relative links resolve against it. */
  readonly finalUrl: string;
  readonly statusCode: number;
  /** Response headers, names in lower case. */
  readonly headers: Readonly<Record<string, string>>;
}

/** The scrape options this module reads; every other option is someone else's. */
export type DocumentOptions = Pick<
  ScrapeOptions,
  'formats' | 'onlyMainContent' | 'includeTags' | 'excludeTags' | 'removeBase64Images' | 'parsers'
>;

export type MediaType = 'image' | 'video' | 'audio';

export interface MediaItem {
  readonly type: MediaType;
  /** Absolute http(s) URL. */
  readonly url: string;
  readonly alt?: string;
}

/**
 * Page metadata. Only fields with a value are present. `statusCode`, `contentType`,
 * `sourceURL` and `url` are always there.
 */
export interface DocumentMetadata {
  title?: string;
  description?: string;
  language?: string;
  canonical?: string;
  favicon?: string;
  keywords?: string;
  author?: string;
  robots?: string;
  publishedTime?: string;
  modifiedTime?: string;
  ogTitle?: string;
  ogDescription?: string;
  ogUrl?: string;
  ogImage?: string;
  ogType?: string;
  ogSiteName?: string;
  ogLocale?: string;
  ogLocaleAlternate?: string[];
  ogAudio?: string;
  ogVideo?: string;
  ogDeterminer?: string;
  twitterCard?: string;
  twitterSite?: string;
  twitterCreator?: string;
  twitterTitle?: string;
  twitterDescription?: string;
  twitterImage?: string;
  /** PDF only: number of pages. */
  numPages?: number;
  statusCode: number;
  contentType: string;
  sourceURL: string;
  url: string;
}

/** What the parser returns: only the formats asked for, and always the metadata. */
export interface ScrapeDocument {
  markdown?: string;
  html?: string;
  rawHtml?: string;
  links?: string[];
  media?: MediaItem[];
  metadata: DocumentMetadata;
  /**
   * What the reader could not do (Firecrawl's field): a PDF read only up to a limit, an upload
   * read as the type its bytes are rather than the one it was sent as. Several are joined by "; ".
   */
  warning?: string;
}

/** The formats this module produces. */
export const PARSER_FORMATS = ['markdown', 'html', 'rawHtml', 'links', 'media'] as const;
export type ParserFormat = (typeof PARSER_FORMATS)[number];
