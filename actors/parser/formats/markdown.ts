/**
 * HTML → markdown with turndown: ATX headings, `-` bullets, nested lists, fenced code
 * blocks that keep their language (`class="language-x"`, `lang-x`, `highlight-source-x`,
 * `data-language`), GFM tables (tables.ts), `~~strike~~`, task list checkboxes, absolute
 * links and images (the HTML was made absolute before), no empty links, and at most one
 * blank line in a row outside code blocks.
 *
 * The service is built once and reused: turndown keeps no per-call state for inline links.
 * A parsed page is converted from its tree (`elementToMarkdown`), not re-parsed from HTML.
 */
import type { Element } from 'domhandler';
import TurndownService from 'turndown';
import type { DomNode } from './dom-node.js';
import { tableRules } from './tables.js';
import { turndownTree } from './turndown-tree.js';

const LANGUAGE = /(?:^|\s)(?:language|lang|highlight-source|highlight)-([\w+#.-]+)/i;

function codeLanguage(pre: DomNode): string {
  const candidates: Array<DomNode | null> = [pre, Array.from(pre.childNodes).find((c) => c.nodeName === 'CODE') ?? null, pre.parentNode];
  for (const node of candidates) {
    if (!node || node.nodeType !== 1) continue;
    const declared = node.getAttribute('data-language') ?? node.getAttribute('data-lang');
    if (declared && /^[\w+#.-]+$/.test(declared)) return declared.toLowerCase();
    const match = LANGUAGE.exec(node.getAttribute('class') ?? '');
    if (match?.[1]) return match[1].toLowerCase();
  }
  return '';
}

function fenceFor(code: string): string {
  const longest = Math.max(2, ...(code.match(/`+/g) ?? []).map((run) => run.length));
  return '`'.repeat(longest + 1);
}

const escapeUrl = (url: string): string => url.trim().replace(/\s/g, '%20').replace(/\(/g, '%28').replace(/\)/g, '%29');
const escapeLabel = (text: string): string => text.replace(/\s+/g, ' ').trim().replace(/([[\]])/g, '\\$1');

/** Characters turndown escapes anywhere in text, and those it escapes only at the start. */
const ESCAPED_ANYWHERE = /[\\*`[\]_]/;
const ESCAPED_AT_START = /^[-+=#~>0-9]/;

function createService(): TurndownService {
  const service = new TurndownService({
    headingStyle: 'atx',
    hr: '---',
    bulletListMarker: '-',
    codeBlockStyle: 'fenced',
    emDelimiter: '_',
    strongDelimiter: '**',
    linkStyle: 'inlined',
  });
  // turndown runs 13 replacements over every text node; most text holds none of what they
  // match, and then the text is returned as is (the same result, without the 13 passes).
  const escape = service.escape.bind(service);
  service.escape = (text: string) => (ESCAPED_ANYWHERE.test(text) || ESCAPED_AT_START.test(text) ? escape(text) : text);
  service.remove((node) => {
    const name = (node as unknown as DomNode).nodeName;
    return name === 'SCRIPT' || name === 'STYLE' || name === 'NOSCRIPT' || name === 'TEMPLATE' || name === 'HEAD' || name === 'svg' || name === 'SVG' || name === 'CANVAS';
  });
  service.addRule('fencedCode', {
    filter: (node) => (node as unknown as DomNode).nodeName === 'PRE',
    replacement: (_content, node) => {
      const pre = node as unknown as DomNode;
      const code = (pre.textContent ?? '').replace(/^\n/, '').replace(/\n+$/, '');
      if (!code.trim()) return '';
      const fence = fenceFor(code);
      return `\n\n${fence}${codeLanguage(pre)}\n${code}\n${fence}\n\n`;
    },
  });
  service.addRule('link', {
    filter: (node) => (node as unknown as DomNode).nodeName === 'A' && !!(node as unknown as DomNode).getAttribute('href'),
    replacement: (content, node) => {
      const a = node as unknown as DomNode;
      // A link wrapping blocks (a card: heading + blurb) must stay on one line; heading
      // and list markers of the inner blocks would only be noise inside the brackets.
      const text = content
        .replace(/^[ \t]*(?:#{1,6}[ \t]+|[-*+][ \t]+|\d+\.[ \t]+)/gm, '')
        .replace(/\s*\n\s*/g, ' ')
        .trim();
      if (!text) return '';
      const href = a.getAttribute('href') ?? '';
      if (/^\s*javascript:/i.test(href)) return text;
      const title = a.getAttribute('title')?.replace(/\s+/g, ' ').trim();
      return `[${text}](${escapeUrl(href)}${title ? ` "${title.replace(/"/g, '\\"')}"` : ''})`;
    },
  });
  service.addRule('image', {
    filter: 'img',
    replacement: (_content, node) => {
      const img = node as unknown as DomNode;
      const src = img.getAttribute('src')?.trim();
      if (!src) return '';
      return `![${escapeLabel(img.getAttribute('alt') ?? '')}](${escapeUrl(src)})`;
    },
  });
  // turndown pads markers to four columns (`-   item`); we write `- item` / `1. item` and
  // indent nested content by the marker's width, which CommonMark and GFM both accept.
  service.addRule('listItem', {
    filter: 'li',
    replacement: (content, node) => {
      const li = node as unknown as DomNode;
      const list = li.parentNode;
      let marker = '- ';
      if (list?.nodeName === 'OL') {
        const items = Array.from(list.childNodes).filter((c) => c.nodeName === 'LI');
        const start = Number.parseInt(list.getAttribute('start') ?? '1', 10);
        marker = `${(Number.isFinite(start) ? start : 1) + items.indexOf(li)}. `;
      }
      const body = content.replace(/^\n+/, '').replace(/\n+$/, '\n').replace(/\n(?!$)/g, `\n${' '.repeat(marker.length)}`);
      const next = (li as unknown as { nextSibling: DomNode | null }).nextSibling;
      return marker + body + (next && !body.endsWith('\n') ? '\n' : '');
    },
  });
  // Definition lists: the term in bold on its own line, the definition as a paragraph.
  service.addRule('definitionTerm', {
    filter: 'dt',
    replacement: (content) => (content.trim() ? `\n\n**${content.trim()}**\n` : ''),
  });
  service.addRule('definition', {
    filter: 'dd',
    replacement: (content) => (content.trim() ? `\n${content.trim()}\n\n` : ''),
  });
  service.addRule('strikethrough', {
    filter: ['del', 's'],
    replacement: (content) => (content.trim() ? `~~${content}~~` : ''),
  });
  service.addRule('taskListItem', {
    filter: (node) => {
      const n = node as unknown as DomNode;
      return n.nodeName === 'INPUT' && n.getAttribute('type') === 'checkbox' && n.parentNode?.nodeName === 'LI';
    },
    replacement: (_content, node) => ((node as unknown as DomNode).getAttribute('checked') !== null ? '[x] ' : '[ ] '),
  });
  tableRules(service);
  return service;
}

let shared: TurndownService | null = null;

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
    const line = /\S/.test(raw) ? raw.replace(/[ \t]+$/, (ws) => (ws.length >= 2 && !marker ? '  ' : '')) : '';
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
