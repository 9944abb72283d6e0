/**
 * Text bodies that are not HTML:
 * - `text/markdown` and `text/plain` (and other `text/*`): the markdown is the text itself;
 * - JSON and XML: the markdown is one fenced code block (`json` / `xml`), as Firecrawl does
 *   for JSON.
 * The `html` format is the text in a `<pre>`; `rawHtml` is the text as fetched (decoded).
 * `links` are the absolute http(s) URLs written in it (markdown link targets resolved
 * against the page URL, bare URLs as written); `media` the markdown images.
 * A markdown document's first `# heading` is its title.
 */
import { isSpace, nextStop, skipSpaces } from '../../../pipeline/runtime/scan.js';
import { trimEndOf } from '../../../pipeline/runtime/trim.js';
import { linkUrl, mediaUrl } from '../formats/urls.js';
import { responseMetadata, type ResponseFacts } from './html.js';
import type { ResolvedOptions } from './options.js';
import type { MediaItem, ScrapeDocument } from './types.js';

export type TextKind = 'markdown' | 'text' | 'json' | 'xml';

const escapeHtml = (text: string): string => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** A fenced code block whose fence is longer than any backtick run inside. */
export function codeBlock(text: string, language: string): string {
  const longest = Math.max(2, ...(text.match(/`+/g) ?? []).map((run) => run.length));
  const fence = '`'.repeat(longest + 1);
  // One pass from the end: /\n+$/ is quadratic over a long inner run of newlines.
  return `${fence}${language}\n${trimEndOf(text, '\n')}\n${fence}`;
}

const BARE_URL = /\bhttps?:\/\/[^\s<>"'`\])}]+/gi;
/** Where a markdown link's label ends, and its target. */
const LABEL_STOP = /[\]\n]/g;
const TARGET_STOP = /[)>\s]/g;

const LINE_END = /[\n\r\u2028\u2029]/;

/** A markdown link or image written in a text. */
export interface MarkdownTarget {
  readonly image: boolean;
  readonly label: string;
  readonly target: string;
}

/**
 * The markdown links and images of `text`, in order, as
 * `/(!?)\[([^\]\n]*)\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g` finds them (bang, label,
 * target), read by hand: that regex is quadratic, each `[` scanning its label and each target
 * its run to the end again. Here a label ends at the next `]` or newline and a target at the
 * next `)`, space or `>`, read once for every start before them; what follows a target (a
 * title, the `)`) is read once for each place a target ends.
 */
export function markdownTargets(text: string): MarkdownTarget[] {
  const out: MarkdownTarget[] = [];
  const labelEnd = nextStop(text, LABEL_STOP);
  const targetEnd = nextStop(text, TARGET_STOP);
  // `(?:\s+"[^"]*")?\s*\)` from `at`: where the match ends, or -1.
  const closeFrom = (at: number): number => {
    const space = skipSpaces(text, at);
    if (space > at && text[space] === '"') {
      const quote = text.indexOf('"', space + 1);
      if (quote >= 0) {
        const paren = skipSpaces(text, quote + 1);
        return text[paren] === ')' ? paren + 1 : -1;
      }
    }
    return text[space] === ')' ? space + 1 : -1;
  };
  const closes = new Map<number, number>();
  // Every `[` up to a label's end shares what follows it: once that fails, they all do.
  let failedLabel = -1;
  for (let pos = 0; ; ) {
    const open = text.indexOf('[', pos);
    if (open < 0) return out;
    // A `!` before the `[` makes an image, unless the last match ended between them.
    const image = open > pos && text[open - 1] === '!';
    pos = open + 1;
    const label = labelEnd(open + 1);
    if (label === failedLabel) continue;
    if (text[label] !== ']' || text[label + 1] !== '(') {
      failedLabel = label;
      continue;
    }
    const at = skipSpaces(text, label + 2);
    // `<?` then `[^)\s>]+`: the `<` is the target only when nothing follows it.
    let start = at;
    const stop = targetEnd(text[at] === '<' ? at + 1 : at);
    if (text[at] === '<' && stop > at + 1) start = at + 1;
    if (stop === start) {
      failedLabel = label;
      continue;
    }
    const after = text[stop] === '>' ? stop + 1 : stop;
    let end = closes.get(after);
    if (end === undefined) {
      end = closeFrom(after);
      closes.set(after, end);
    }
    if (end < 0) {
      failedLabel = label;
      continue;
    }
    out.push({ image, label: text.slice(open + 1, label), target: text.slice(start, stop) });
    pos = end;
  }
}

function textLinks(text: string, base: string, markdown: boolean): { links: string[]; media: MediaItem[] } {
  const links = new Set<string>();
  const media: MediaItem[] = [];
  const seenMedia = new Set<string>();
  if (markdown) {
    for (const { image, label, target } of markdownTargets(text)) {
      if (image) {
        const url = mediaUrl(target, base);
        if (url && !seenMedia.has(url)) {
          seenMedia.add(url);
          media.push(label.trim() ? { type: 'image', url, alt: label.trim() } : { type: 'image', url });
        }
        continue;
      }
      const url = linkUrl(target, base);
      if (url) links.add(url);
    }
  }
  for (const m of text.matchAll(BARE_URL)) {
    // One pass from the end: /[.,;:!?]+$/ is quadratic over a long inner run of dots.
    const url = linkUrl(trimEndOf(m[0], '.,;:!?'), base);
    if (url && !seenMedia.has(url)) links.add(url);
  }
  return { links: [...links], media };
}

/**
 * The first `# heading` of a markdown text, as `/^#\s+(.+?)\s*#*\s*$/m` captures it, found by
 * hand: that regex is cubic over a long heading of spaces (every end of the title against
 * every split of the closing `\s*#*\s*`). The title is its line from the first character
 * after the `#`'s whitespace (which may cross lines) without the closing spaces, `#`s and
 * spaces, but at least one character.
 */
export function markdownTitle(text: string): string | undefined {
  const heading = /^#\s/m.exec(text);
  if (!heading) return undefined;
  const start = skipSpaces(text, heading.index + 1);
  if (start === text.length) {
    // Whitespace to the end: `\s+` gives back its last character that `.` takes.
    for (let at = text.length - 1; at > heading.index + 1; at--) if (!LINE_END.test(text[at] as string)) return text[at];
    return undefined;
  }
  const lineEnd = text.slice(start).search(LINE_END);
  const line = text.slice(start, lineEnd < 0 ? text.length : start + lineEnd);
  let end = line.length;
  while (end > 1 && isSpace(line[end - 1] as string)) end--;
  while (end > 1 && line[end - 1] === '#') end--;
  while (end > 1 && isSpace(line[end - 1] as string)) end--;
  return line.slice(0, end);
}

export function buildTextDocument(text: string, kind: TextKind, facts: ResponseFacts, options: ResolvedOptions): ScrapeDocument {
  const wants = options.formats;
  const doc: ScrapeDocument = { metadata: { ...responseMetadata(facts) } };
  if (kind === 'markdown') {
    const title = markdownTitle(text);
    if (title) doc.metadata = { title, ...doc.metadata };
  }
  const out: Partial<ScrapeDocument> = {};
  if (wants.has('markdown')) out.markdown = kind === 'json' || kind === 'xml' ? codeBlock(text, kind) : text.trim();
  if (wants.has('html')) out.html = `<pre>${escapeHtml(text)}</pre>`;
  if (wants.has('rawHtml')) out.rawHtml = text;
  if (wants.has('links') || wants.has('media')) {
    const found = textLinks(text, facts.finalUrl, kind === 'markdown');
    if (wants.has('links')) out.links = found.links;
    if (wants.has('media')) out.media = found.media;
  }
  return { ...out, metadata: doc.metadata };
}
