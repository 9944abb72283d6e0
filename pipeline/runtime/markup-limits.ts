/**
 * Limits on markup that comes from outside, checked before any tree is built: one linear pass
 * over the tags tells whether a page or an XML file nests elements deeper than a limit.
 * htmlparser2, which every tree here is built with, keeps its open elements in an array it
 * shifts and unshifts, so its time grows with the square of the depth (a page 50,000 `<div>`s
 * deep takes it minutes), and every walk over the tree afterwards (text, serialising, markdown,
 * main content) recurses once a level, so a page a few thousand deep overflows the stack. The
 * site readers (pipeline/intel/site/read.ts) refuse such markup with this check before they
 * load a page or a sitemap; the scrape path's parser stops its own parse at the first element
 * too deep instead (actors/parser/formats/load-html.ts), which costs a page nothing extra.
 */

/** HTML elements that never nest (void), or that a parser closes by itself when the next one opens: they are not counted. */
const NOT_NESTING = new Set([
  'area', 'base', 'br', 'col', 'embed', 'hr', 'img', 'input', 'link', 'meta', 'param', 'source', 'track', 'wbr', 'keygen',
  'p', 'li', 'dt', 'dd', 'tr', 'td', 'th', 'option', 'optgroup', 'thead', 'tbody', 'tfoot', 'colgroup', 'rp', 'rt',
]);
/** HTML elements whose content is text, not markup (skipped to their end tag). */
const RAW_TEXT = new Set(['script', 'style', 'textarea', 'title', 'xmp', 'noembed', 'noframes']);

const isNameChar = (c: number): boolean => (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 45 || c === 58 || c === 95 || c === 46;

/**
 * Whether markup nests elements deeper than `max`, told by one linear pass over its tags (no
 * tree, no parser stack): an opening tag counts one level, a closing tag takes one off,
 * self-closing tags, comments, declarations and processing instructions count nothing; in
 * `html` mode void elements and the elements a parser closes by itself (`p`, `li`, `td`, …) do
 * not count, and script and style content is skipped. htmlparser2, which every tree here is
 * built with, keeps its open elements in an array it shifts and unshifts, so its time grows
 * with the square of the depth: a page 50,000 `<div>`s deep takes it minutes. Reading stops
 * before that.
 */
export function markupDepthOver(text: string, max: number, html: boolean): boolean {
  let depth = 0;
  let i = text.indexOf('<');
  while (i >= 0 && i < text.length - 1) {
    const c = text.charCodeAt(i + 1);
    let end: number;
    if (c === 33 /* ! */ && text.startsWith('<!--', i)) {
      const close = text.indexOf('-->', i + 4);
      end = close < 0 ? text.length : close + 2;
    } else if (c === 33 || c === 63 /* ? */) {
      end = text.indexOf('>', i + 2);
    } else if (c === 47 /* / */) {
      let j = i + 2;
      while (j < text.length && isNameChar(text.charCodeAt(j))) j += 1;
      const name = text.slice(i + 2, j).toLowerCase();
      if (!html || !NOT_NESTING.has(name)) depth = Math.max(0, depth - 1);
      end = text.indexOf('>', j);
    } else if (isNameChar(c)) {
      let j = i + 1;
      while (j < text.length && j - i < 64 && isNameChar(text.charCodeAt(j))) j += 1;
      const name = text.slice(i + 1, j).toLowerCase();
      end = text.indexOf('>', j);
      const selfClosing = end > 0 && text.charCodeAt(end - 1) === 47;
      if (html && RAW_TEXT.has(name) && end >= 0) {
        const close = indexOfEndTag(text, name, end + 1);
        end = close < 0 ? text.length : text.indexOf('>', close);
      } else if (!selfClosing && !(html && NOT_NESTING.has(name))) {
        depth += 1;
        if (depth > max) return true;
      }
    } else {
      end = i + 1;
    }
    if (end < 0) break;
    i = text.indexOf('<', end + 1);
  }
  return false;
}

/** Where `</name` starts after `from` (any case), or -1. One forward scan. */
function indexOfEndTag(text: string, name: string, from: number): number {
  for (let at = text.indexOf('</', from); at >= 0; at = text.indexOf('</', at + 2)) {
    if (text.slice(at + 2, at + 2 + name.length).toLowerCase() === name) return at;
  }
  return -1;
}

/**
 * Markup read off the caller's thread (in a worker of the reader's pool) rather than on it: over
 * OFF_THREAD_PAGE_BYTES, or holding more than OFF_THREAD_PAGE_TAGS `<`. Parsing is linear but not
 * cheap: a 13 MB page of 550,000 links held the service's thread for 20 s, every other request
 * waiting; 5 MB and 200,000 links, 9 s; a 2.4 MB page of text made to be hard to escape, 0.7 s. No
 * page of the corpus is past either (at most 1.6 MB and 19,629 `<`). The parser (actors/parser/document/build.ts) and the map's page reader
 * (actors/frontier/page-links-pool.ts) hold to this line; the site readers, which read on the
 * caller's thread, do not read a page of more than MAX_HTML_TAGS at all (pipeline/intel/site/limits.ts).
 */
export const OFF_THREAD_PAGE_BYTES = 2 * 1024 * 1024;
export const OFF_THREAD_PAGE_TAGS = 40_000;
/** Smaller markup is not counted: it cannot hold OFF_THREAD_PAGE_TAGS tags. */
const COUNTED_FROM = OFF_THREAD_PAGE_TAGS * 4;

/** Whether markup (bytes, or text: then its length in UTF-16 units) is to be read off the caller's thread. */
export function readsOffThread(markup: Buffer | string): boolean {
  if (markup.length > OFF_THREAD_PAGE_BYTES) return true;
  return markup.length >= COUNTED_FROM && tagsOver(markup, OFF_THREAD_PAGE_TAGS);
}

/** Whether markup holds more than `max` `<` (a tag's start, or a stray one: an upper bound on its tags), counted up to max + 1. */
export function tagsOver(markup: Buffer | string, max: number): boolean {
  let tags = 0;
  if (typeof markup === 'string') {
    for (let at = markup.indexOf('<'); at >= 0; at = markup.indexOf('<', at + 1)) if (++tags > max) return true;
  } else {
    for (let at = markup.indexOf(0x3c); at >= 0; at = markup.indexOf(0x3c, at + 1)) if (++tags > max) return true;
  }
  return false;
}
