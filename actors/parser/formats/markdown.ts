/**
 * HTML → markdown with turndown: ATX headings, `-` bullets, nested lists, fenced code
 * blocks that keep their language (`class="language-x"`, `lang-x`, `highlight-source-x`,
 * `data-language`), GFM tables (tables.ts), `~~strike~~`, task list checkboxes, absolute
 * links and images (the HTML was made absolute before), no empty links, and at most one
 * blank line in a row outside code blocks. The rules are in markdown-rules.ts.
 *
 * The service is built once and reused: turndown keeps no per-call state for inline links.
 * A parsed page is converted from its tree (`elementToMarkdown`), not re-parsed from HTML.
 */
import type { Element } from 'domhandler';
import TurndownService from 'turndown';
import { trimEndOf } from '../../../pipeline/runtime/trim.js';
import { isNotContent, markdownRules } from './markdown-rules.js';
import { tableRules } from './tables.js';
import { turndownTree } from './turndown-tree.js';

/** Characters turndown escapes anywhere in text, and those it escapes only at the start. */
const ESCAPED_ANYWHERE = /[\\*`[\]_]/;
const ESCAPED_AT_START = /^[-+=#~>0-9]/;

const OPTIONS: TurndownService.Options = {
  headingStyle: 'atx',
  hr: '---',
  bulletListMarker: '-',
  codeBlockStyle: 'fenced',
  emDelimiter: '_',
  strongDelimiter: '**',
  linkStyle: 'inlined',
};

function createService(): TurndownService {
  const service = new TurndownService(OPTIONS);
  escapeOnlyWhenNeeded(service);
  service.remove(isNotContent);
  for (const [name, rule] of markdownRules) service.addRule(name, rule);
  tableRules(service);
  return service;
}

/**
 * turndown runs 13 replacements over every text node; most text holds none of what they
 * match, and then the text is returned as is (the same result, without the 13 passes).
 */
function escapeOnlyWhenNeeded(service: TurndownService): void {
  const escape = service.escape.bind(service);
  service.escape = (text: string) => (ESCAPED_ANYWHERE.test(text) || ESCAPED_AT_START.test(text) ? escape(text) : text);
}

let shared: TurndownService | null = null;

/**
 * `line`'s trailing spaces and tabs: two or more (a hard break) become two, outside a fence
 * marker line; fewer are dropped. One pass from the end: /[ \t]+$/ is quadratic over a long
 * inner run of spaces.
 */
function trailingSpaces(line: string, marker: string | undefined): string {
  const kept = trimEndOf(line, ' \t');
  const ws = line.length - kept.length;
  if (ws === 0) return line;
  return ws >= 2 && !marker ? `${kept}  ` : kept;
}

/** Collapses blank-line runs and trailing spaces outside fenced code; trims the ends. */
export function tidyMarkdown(markdown: string): string {
  const out: string[] = [];
  let fence: string | null = null;
  let blank = false;
  for (const raw of markdown.split('\n')) {
    const marker = /^\s*(`{3,}|~{3,})/.exec(raw)?.[1];
    if (fence) {
      out.push(raw);
      if (marker && marker[0] === fence[0] && marker.length >= fence.length && raw.trim() === marker) fence = null;
      continue;
    }
    if (marker) fence = marker;
    const line = /\S/.test(raw) ? trailingSpaces(raw, marker) : '';
    if (!line) {
      if (!blank && out.length) out.push('');
      blank = true;
      continue;
    }
    blank = false;
    out.push(line);
  }
  return out.join('\n').trim();
}

type TurndownInput = Parameters<TurndownService['turndown']>[0];

/** Markdown of an HTML fragment or document. */
export function htmlToMarkdown(html: string): string {
  shared ??= createService();
  return tidyMarkdown(shared.turndown(html));
}

/**
 * Markdown of a parsed element, the same as `htmlToMarkdown` of its serialization: turndown
 * reads a copy of the tree (turndown-tree.ts) instead of parsing the HTML again. Where
 * reparsing could change the tree, the serialization (`html()`) is converted instead.
 */
export function elementToMarkdown(el: Element, html: () => string): string {
  const tree = turndownTree(el);
  if (!tree) return htmlToMarkdown(html());
  shared ??= createService();
  return tidyMarkdown(shared.turndown(tree as unknown as TurndownInput));
}
