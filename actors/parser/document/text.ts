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
  return `${fence}${language}\n${text.replace(/\n+$/, '')}\n${fence}`;
}

const MARKDOWN_TARGET = /(!?)\[([^\]\n]*)\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g;
const BARE_URL = /\bhttps?:\/\/[^\s<>"'`\])}]+/gi;

function textLinks(text: string, base: string, markdown: boolean): { links: string[]; media: MediaItem[] } {
  const links = new Set<string>();
  const media: MediaItem[] = [];
  const seenMedia = new Set<string>();
  if (markdown) {
    for (const m of text.matchAll(MARKDOWN_TARGET)) {
      const [, bang, label = '', target = ''] = m;
      if (bang) {
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
    const url = linkUrl(m[0].replace(/[.,;:!?]+$/, ''), base);
    if (url && !seenMedia.has(url)) links.add(url);
  }
  return { links: [...links], media };
}

export function buildTextDocument(text: string, kind: TextKind, facts: ResponseFacts, options: ResolvedOptions): ScrapeDocument {
  const wants = options.formats;
  const doc: ScrapeDocument = { metadata: { ...responseMetadata(facts) } };
  if (kind === 'markdown') {
    const title = /^#\s+(.+?)\s*#*\s*$/m.exec(text)?.[1];
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
