/**
 * The page's structured markup — JSON-LD, microdata, RDFa Lite, and the Open Graph / Twitter
 * card / meta tags — read from the tree the parser already loaded and normalised to
 * schema.org-shaped `Thing`s (pipeline/structured/types.ts). The `json` format answers from
 * these first; the page rules and the model fill what they leave. It lives here, not in the
 * parser, because the site readers (pipeline/intel/site/: company, products, posts) read the
 * same markup from the pages they load.
 *
 * Order of `things`: the JSON-LD things, then the microdata items, then the RDFa nodes (each
 * syntax in document order), then one `meta` thing when the page has such tags. The tree is
 * only read, never changed (the parser goes on with it). Nothing here throws on a page: a
 * broken JSON-LD block is repaired or skipped (json-text.ts), and a reader that fails anyway
 * (a bug, never the page's fault) loses its syntax on that page, not the page.
 *
 * Decision — our own walk, not htmlmetaparser. htmlmetaparser (blakeembrey) reads all four
 * syntaxes, but as an htmlparser2 handler: it needs a second parse of the HTML, collects
 * links, images and icons we do not want, JSON.parses blocks with no repair, and its output
 * (RDF-flavoured nodes, `@id` references left unresolved) would still need all of our
 * normalising. One attribute-only walk of the tree we already have (scan.ts), then readers
 * that look only at the marked-up places, costs a small fraction of that. Measured on the
 * 990 trafilatura-eval pages (compiled with tsc, Node 22; CPU time per page, best of 8
 * interleaved rounds on a shared two-core machine, so ±15%):
 *
 *   scrape parse (buildHtmlDocument, markdown, main content)   9,489 µs/page
 *   loadHtml alone                                              2,675 µs/page
 *   readStructuredData (this module)                         284–344 µs/page
 *     = 10.6–11.6% of loadHtml (two runs), ≈ 3% of the scrape parse; of which the scan
 *       113 µs (a bare walk of the same trees: 46 µs); on the 467 pages with JSON-LD 12.5%
 *   htmlmetaparser (its own second parse)                 6,000–6,600 µs/page (≈ 2.1× loadHtml)
 *
 * Files: scan.ts (the walk), json-text.ts (lenient JSON), json-ld.ts, microdata.ts, rdfa.ts,
 * meta.ts (the readers), values.ts (names, text, URLs), schema-types.ts (the subtype table,
 * `isType`, `findThings`), to-json.ts (`thingToJson`).
 */
import type { CheerioAPI } from 'cheerio';
import type { Thing } from '../types.js';
import { readJsonLd } from './json-ld.js';
import { readMeta } from './meta.js';
import { readMicrodata } from './microdata.js';
import { readRdfa } from './rdfa.js';
import { type MarkupScan, scanMarkup } from './scan.js';

export { findThings, isType } from './schema-types.js';
export { thingToJson } from './to-json.js';

/** The things a page's structured markup describes (see the file comment for their order). */
export interface StructuredData {
  readonly things: readonly Thing[];
}

/** Runs one reader, keeping its first MAX_THINGS; a reader that throws gives nothing (see the file comment). */
function attempt<T>(read: () => readonly T[]): readonly T[] {
  try {
    const found = read();
    return found.length > MAX_THINGS ? found.slice(0, MAX_THINGS) : found;
  } catch {
    return [];
  }
}

/**
 * JSON-LD blocks read from a page at most, and things kept of each kind of its markup: real pages write a
 * few blocks (a product list one a product, rarely over 50); 20,000 blocks took the parser's
 * thread 0.3 s to read and a template a second more to fill.
 */
export const MAX_JSON_LD_BLOCKS = 200;
/** Things kept of each reader (JSON-LD, microdata, RDFa). */
export const MAX_THINGS = 2_000;

/** Reads the page's structured data. `baseUrl` (the page's base URL) resolves relative URLs. */
export function readStructuredData($: CheerioAPI, baseUrl: string): StructuredData {
  const root = $.root()[0];
  const [scan] = attempt<MarkupScan>(() => (root ? [scanMarkup(root)] : []));
  if (!root || !scan) return { things: [] };
  const things: Thing[] = [
    ...attempt(() => readJsonLd(scan.jsonLd.length > MAX_JSON_LD_BLOCKS ? scan.jsonLd.slice(0, MAX_JSON_LD_BLOCKS) : scan.jsonLd, baseUrl)),
    ...attempt(() => readMicrodata(root, scan, baseUrl)),
    ...attempt(() => readRdfa(scan.rdfa, baseUrl)),
    ...attempt(() => {
      const meta = readMeta(scan, baseUrl);
      return meta ? [meta] : [];
    }),
  ];
  return { things };
}
