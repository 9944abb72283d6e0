/**
 * Sitemaps (sitemaps.org 0.9, and the other forms it allows), read tolerantly.
 *
 * - `sitemapText` turns fetched bytes into text: gzip is recognised by its magic bytes
 *   (a `.xml.gz` file served as `application/gzip`, or gzip content with no
 *   Content-Encoding) and inflated; an oversize or damaged stream is read as far as it
 *   inflates within `maxBytes`, then decoded (BOM, Content-Type charset, XML `encoding`, else UTF-8).
 * - `parseSitemap` reads a `<urlset>` (each `<url>`'s `<loc>`, `<lastmod>`, and a Google
 *   News `<news:title>` as the page title), a `<sitemapindex>` (each `<sitemap>`'s `<loc>`:
 *   more sitemaps to read), an RSS 2.0 or Atom feed (each item's link and title) or a text
 *   sitemap (one URL per line). Namespace prefixes are ignored; `<![CDATA[…]]>` and the XML
 *   entities are decoded.
 * - Malformed XML is read as far as it makes sense: entries are found by their tags, not by
 *   a validating parser, so an unclosed `<url>`, a missing namespace, a truncated file or
 *   stray markup lose at most the broken entry. A `<loc>` outside any `<url>` still counts.
 *   Only http(s) URLs are kept; anything else is skipped.
 */
import { constants, gunzipSync } from 'node:zlib';
import { decodeBody } from '../../pipeline/runtime/net/charset.js';
import { nextStop, replaceThroughLast, throughLast } from '../../pipeline/runtime/scan.js';

/** sitemaps.org's limit for one sitemap file, uncompressed. */
export const SITEMAP_MAX_BYTES = 50 * 1024 * 1024;
/**
 * sitemaps.org's limit of entries in one file (URLs of a urlset, sitemaps of an index): the
 * entries after it are not read (as search engines do not). A file is read on the frontier's
 * thread, ~4 µs an entry: 44 MB of 840,000 URLs took 3.4 s, and a map reads up to 100 files.
 */
export const SITEMAP_MAX_ENTRIES = 50_000;

export interface SitemapEntry {
  readonly url: string;
  readonly title?: string;
  readonly lastmod?: string;
}

export interface ParsedSitemap {
  readonly kind: 'urlset' | 'index' | 'feed' | 'text' | 'unknown';
  /** Page URLs (urlset, feed, text). */
  readonly urls: readonly SitemapEntry[];
  /** More sitemaps to read (index). */
  readonly sitemaps: readonly string[];
}

function isGzip(body: Buffer): boolean {
  return body.length >= 2 && body[0] === 0x1f && body[1] === 0x8b;
}

/** The text of a fetched sitemap; gzip inflated (see the module comment). */
export function sitemapText(body: Buffer, contentType: string | null, maxBytes = SITEMAP_MAX_BYTES): string {
  if (!isGzip(body)) return decodeBody(body.length > maxBytes ? body.subarray(0, maxBytes) : body, contentType).text;
  let inflated: Buffer;
  try {
    inflated = gunzipSync(body, { maxOutputLength: maxBytes });
  } catch {
    // Larger than maxBytes, or a damaged stream: read what inflates, up to the cap.
    inflated = gunzipPrefix(body, maxBytes);
  }
  return decodeBody(inflated, null).text;
}

/** As much of a gzip stream as inflates cleanly, at most `maxBytes`. */
function gunzipPrefix(body: Buffer, maxBytes: number): Buffer {
  try {
    return gunzipSync(body, { finishFlush: constants.Z_SYNC_FLUSH, maxOutputLength: maxBytes });
  } catch {
    // Inflate in chunks until the cap or the damage.
    const out: Buffer[] = [];
    let total = 0;
    for (let end = Math.min(body.length, 64 * 1024); total < maxBytes; end = Math.min(body.length, end * 2)) {
      try {
        const part = gunzipSync(body.subarray(0, end), { finishFlush: constants.Z_SYNC_FLUSH, maxOutputLength: maxBytes });
        out.length = 0;
        out.push(part);
        total = part.length;
      } catch {
        break;
      }
      if (end === body.length) break;
    }
    return Buffer.concat(out).subarray(0, maxBytes);
  }
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

/**
 * `text` through its last `>`, where a tag (`<…[^>]*>`) can end: tags are searched only there,
 * as past it `[^>]*` would scan to the end from every `<` before failing (quadratic).
 */
const throughLastGt = (text: string): string => throughLast(text, '>');

/** An element's text: CDATA unwrapped, tags dropped, entities decoded, whitespace collapsed. */
export function xmlText(raw: string): string {
  const cdata = raw.replace(/<!\[CDATA\[([\s\S]*?)(?:\]\]>|$)/g, (_, inner: string) => inner.replace(/[&<>]/g, (c) => `&${c === '&' ? 'amp' : c === '<' ? 'lt' : 'gt'};`));
  return replaceThroughLast(cdata, '>', /<[^>]*>/g, ' ')
    .replace(/&(#x[0-9a-f]+|#\d+|\w+);/gi, (whole, name: string) => {
      if (name[0] === '#') {
        const code = name[1] === 'x' || name[1] === 'X' ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10);
        return Number.isFinite(code) && code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
      }
      return ENTITIES[name.toLowerCase()] ?? whole;
    })
    .replace(/\s+/g, ' ')
    .trim();
}

const OPEN_TAGS = new Map<string, RegExp>();

/** `<prefix:tag …>`. */
function openTag(tag: string): RegExp {
  let re = OPEN_TAGS.get(tag);
  if (!re) {
    re = new RegExp(`<(?:[\\w.-]+:)?${tag}(?:\\s[^>]*)?>`, 'i');
    OPEN_TAGS.set(tag, re);
  }
  return re;
}

/** An element's body; `truncated` when it is unclosed at the very end of the document. */
interface Block {
  readonly body: string;
  readonly truncated: boolean;
}

/**
 * The text of the first `<prefix:tag>` in `block`. An unclosed one runs to the next tag; one
 * still open at the end of a truncated document is dropped (its text may be cut short).
 * Its body ends at the first `<` that does not open `<!` (its closing tag or another tag), as
 * `<tag …>([\s\S]*?)(?:</tag\s*>|(?=<(?![!]))|$)` reads it, found with `indexOf`: that regex
 * scans to the end from every `<tag ` with no `>` after it (quadratic).
 */
function child(block: Block, tag: string): string | undefined {
  const { body } = block;
  const open = openTag(tag).exec(throughLastGt(body));
  if (!open) return undefined;
  const start = open.index + open[0].length;
  let end = body.indexOf('<', start);
  while (end >= 0 && body[end + 1] === '!') end = body.indexOf('<', end + 1);
  if (end < 0) {
    if (block.truncated) return undefined;
    end = body.length;
  }
  const text = xmlText(body.slice(start, end));
  return text || undefined;
}

/**
 * The bodies of the first SITEMAP_MAX_ENTRIES `<prefix:tag>…</prefix:tag>` elements in `xml`;
 * an unclosed one runs to the next opening.
 */
function blocks(xml: string, tag: string): Block[] {
  const open = new RegExp(`<(?:[\\w.-]+:)?${tag}(?:\\s[^>]*)?>`, 'gi');
  const starts: { index: number; end: number }[] = [];
  const tags = throughLastGt(xml);
  // One opening past the limit, where the last element read ends.
  for (let m = open.exec(tags); m && starts.length <= SITEMAP_MAX_ENTRIES; m = open.exec(tags)) starts.push({ index: m.index, end: m.index + m[0].length });
  const close = new RegExp(`</(?:[\\w.-]+:)?${tag}\\s*>`, 'i');
  return starts.slice(0, SITEMAP_MAX_ENTRIES).map((start, i) => {
    const next = starts[i + 1]?.index;
    const body = xml.slice(start.end, next ?? xml.length);
    const closed = close.exec(body);
    if (closed) return { body: body.slice(0, closed.index), truncated: false };
    return { body, truncated: next === undefined && !endsWithCloseTag(body) };
  });
}

/**
 * Whether `body` ends with a closing tag and whitespace (`/<\/[^>]*>\s*$/`), read from the
 * end: that regex scans to the end from every `</` (quadratic over a run of them).
 */
function endsWithCloseTag(body: string): boolean {
  const rest = body.trimEnd();
  if (!rest.endsWith('>')) return false;
  const gt = rest.length - 1;
  return rest.lastIndexOf('</', gt - 2) > rest.lastIndexOf('>', gt - 1);
}

function httpUrl(text: string | undefined): string | null {
  if (!text) return null;
  try {
    const url = new URL(text.trim());
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : null;
  } catch {
    return null;
  }
}

function rootTag(xml: string): string | null {
  // The first element that is not a declaration, comment or processing instruction.
  const match = /<([A-Za-z_][\w.-]*:)?([A-Za-z_][\w.-]*)[\s>/]/.exec(withoutDeclarations(xml.slice(0, 65_536)));
  return match?.[2]?.toLowerCase() ?? null;
}

const DOCTYPE = /<!DOCTYPE/iy;

/**
 * `head` without its `<?…?>`, `<!--…-->` and `<!DOCTYPE…>`, as
 * `/<\?[\s\S]*?\?>|<!--[\s\S]*?-->|<!DOCTYPE[^>]*>/gi` removes them, by `indexOf`: that regex
 * scans to the end again from every unclosed opening (quadratic, half a second on a 64 KiB
 * head). An ending missing after one opening is missing after every later one.
 */
function withoutDeclarations(head: string): string {
  const endings: [open: string, close: string][] = [['<?', '?>'], ['<!--', '-->'], ['<!DOCTYPE', '>']];
  const missing = new Set<string>();
  let out = '';
  let copied = 0;
  for (let at = head.indexOf('<'); at >= 0; at = head.indexOf('<', at + 1)) {
    DOCTYPE.lastIndex = at;
    const ending = endings.find(([open]) => (open === '<!DOCTYPE' ? DOCTYPE.test(head) : head.startsWith(open, at)));
    if (!ending || missing.has(ending[1])) continue;
    const close = head.indexOf(ending[1], at + ending[0].length);
    if (close < 0) {
      missing.add(ending[1]);
      continue;
    }
    out += head.slice(copied, at);
    copied = close + ending[1].length;
    at = copied - 1;
  }
  return out + head.slice(copied);
}

/** The opening of an image or video block: with a prefix, else without (as `<(?:[\w.-]+:)?(image|video)\b` tries them). */
const MEDIA_OPENINGS = [/<[\w.-]+:(image|video)\b/iy, /<(image|video)\b/iy];
const MEDIA_CLOSINGS: Record<string, RegExp> = { image: /<\/(?:[\w.-]+:)?image\s*>/gi, video: /<\/(?:[\w.-]+:)?video\s*>/gi };

/**
 * `body` without its `<image:image>…</image:image>` and `<video:video>…</video:video>`
 * blocks, as `/<(?:[\w.-]+:)?(image|video)\b[^>]*>[\s\S]*?<\/(?:[\w.-]+:)?\1\s*>/gi` removes
 * them, by hand: that regex is cubic over unclosed openings (each scans to the end for its
 * closing tag). Here the `>` ending an opening and the closing tag after it are each searched
 * once for all the openings before them: a search that finds nothing finds nothing for a
 * later opening either.
 */
function withoutMediaBlocks(body: string): string {
  const nextGt = nextStop(body, />/g);
  const closings = new Map<string, { from: number; at: number; end: number }>();
  const closingAfter = (name: string, from: number): { at: number; end: number } => {
    const last = closings.get(name);
    if (last && from >= last.from && (last.at < 0 || from <= last.at)) return last;
    const closing = MEDIA_CLOSINGS[name] as RegExp;
    closing.lastIndex = from;
    const m = closing.exec(body);
    const found = { from, at: m ? m.index : -1, end: m ? m.index + m[0].length : -1 };
    closings.set(name, found);
    return found;
  };
  let out = '';
  let copied = 0;
  for (let at = body.indexOf('<'); at >= 0; at = body.indexOf('<', at + 1)) {
    for (const opening of MEDIA_OPENINGS) {
      opening.lastIndex = at;
      const m = opening.exec(body);
      if (!m) continue;
      const gt = nextGt(opening.lastIndex);
      if (gt === body.length) continue;
      const closing = closingAfter((m[1] as string).toLowerCase(), gt + 1);
      if (closing.at < 0) continue;
      out += body.slice(copied, at);
      copied = closing.end;
      at = copied - 1;
      break;
    }
  }
  return out + body.slice(copied);
}

function parseUrlset(xml: string): SitemapEntry[] {
  const out: SitemapEntry[] = [];
  const urlBlocks = blocks(xml, 'url');
  const source = urlBlocks.length ? urlBlocks : blocks(xml, 'loc').map((loc) => ({ body: loc.truncated ? `<loc>${loc.body}` : `<loc>${loc.body}</loc>`, truncated: loc.truncated }));
  for (const block of source) {
    const url = httpUrl(child(block, 'loc'));
    if (!url) continue;
    // A title inside <image:image> or <video:video> names the image or video, not the page.
    const title = child({ ...block, body: withoutMediaBlocks(block.body) }, 'title');
    const lastmod = child(block, 'lastmod');
    out.push({ url, ...(title ? { title } : {}), ...(lastmod ? { lastmod } : {}) });
  }
  return out;
}

function parseFeed(xml: string, atom: boolean): SitemapEntry[] {
  const out: SitemapEntry[] = [];
  for (const block of blocks(xml, atom ? 'entry' : 'item')) {
    let url: string | null;
    if (atom) {
      const links = [...throughLastGt(block.body).matchAll(/<(?:[\w.-]+:)?link\b([^>]*)>/gi)].map((m) => m[1] ?? '');
      const preferred = links.find((attrs) => !/\brel\s*=/.test(attrs) || /\brel\s*=\s*["']alternate["']/i.test(attrs)) ?? links[0];
      const href = preferred ? /\bhref\s*=\s*(?:"([^"]*)"|'([^']*)')/i.exec(preferred) : null;
      url = httpUrl(href ? xmlText(href[1] ?? href[2] ?? '') : undefined);
    } else {
      url = httpUrl(child(block, 'link')) ?? httpUrl(child(block, 'guid'));
    }
    if (!url) continue;
    const title = child(block, 'title');
    out.push({ url, ...(title ? { title } : {}) });
  }
  return out;
}

function parseText(text: string): SitemapEntry[] {
  const out: SitemapEntry[] = [];
  for (const line of text.split(/\r\n|\r|\n/, SITEMAP_MAX_ENTRIES)) {
    const url = httpUrl(line);
    if (url) out.push({ url });
  }
  return out;
}

/** Reads a sitemap's text (see the module comment). */
export function parseSitemap(text: string): ParsedSitemap {
  const xml = text.replace(/^\uFEFF/, '');
  if (!/^\s*</.test(xml)) {
    const urls = parseText(xml);
    return { kind: urls.length ? 'text' : 'unknown', urls, sitemaps: [] };
  }
  const root = rootTag(xml);
  if (root === 'sitemapindex' || (root !== 'urlset' && blocks(xml, 'sitemap').length > 0 && blocks(xml, 'url').length === 0)) {
    const sitemaps = [...new Set(blocks(xml, 'sitemap').map((b) => httpUrl(child(b, 'loc'))).filter((u): u is string => u !== null))];
    return { kind: 'index', urls: [], sitemaps };
  }
  if (root === 'rss' || root === 'rdf') return { kind: 'feed', urls: parseFeed(xml, false), sitemaps: [] };
  if (root === 'feed') return { kind: 'feed', urls: parseFeed(xml, true), sitemaps: [] };
  const urls = parseUrlset(xml);
  return { kind: root === 'urlset' || urls.length ? 'urlset' : 'unknown', urls, sitemaps: [] };
}
