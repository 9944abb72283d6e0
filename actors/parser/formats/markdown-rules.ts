/**
 * The turndown rules of our markdown (markdown.ts), besides the tables (tables.ts): fenced
 * code blocks that keep their language, links kept on one line, images, `- item` / `1. item`
 * list markers, definition lists, `~~strike~~` and task list checkboxes; and what is removed
 * (scripts, styles, `<head>`, graphics). Later rules take precedence in turndown: they are
 * added in the order of `markdownRules`.
 */
import type TurndownService from 'turndown';
import { trimEndOf } from '../../../pipeline/runtime/trim.js';
import type { DomNode } from './dom-node.js';

type Rule = TurndownService.Rule;

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

/** Elements whose content is not the page's text. */
export const isNotContent: TurndownService.FilterFunction = (node) => {
  const name = (node as unknown as DomNode).nodeName;
  return name === 'SCRIPT' || name === 'STYLE' || name === 'NOSCRIPT' || name === 'TEMPLATE' || name === 'HEAD' || name === 'svg' || name === 'SVG' || name === 'CANVAS';
};

const fencedCode: Rule = {
  filter: (node) => (node as unknown as DomNode).nodeName === 'PRE',
  replacement: (_content, node) => {
    const pre = node as unknown as DomNode;
    // One pass from the end: /\n+$/ is quadratic over a long inner run of newlines.
    const code = trimEndOf((pre.textContent ?? '').replace(/^\n/, ''), '\n');
    if (!code.trim()) return '';
    const fence = fenceFor(code);
    return `\n\n${fence}${codeLanguage(pre)}\n${code}\n${fence}\n\n`;
  },
};

const link: Rule = {
  filter: (node) => (node as unknown as DomNode).nodeName === 'A' && !!(node as unknown as DomNode).getAttribute('href'),
  replacement: (content, node) => {
    const a = node as unknown as DomNode;
    // A link wrapping blocks (a card: heading + blurb) must stay on one line; heading
    // and list markers of the inner blocks would only be noise inside the brackets.
    // A whitespace run holding a newline becomes one space; /\s*\n\s*/g would be quadratic
    // over a long run of spaces without one (each start scans the run).
    const text = content
      .replace(/^[ \t]*(?:#{1,6}[ \t]+|[-*+][ \t]+|\d+\.[ \t]+)/gm, '')
      .replace(/\s+/g, (ws) => (ws.includes('\n') ? ' ' : ws))
      .trim();
    if (!text) return '';
    const href = a.getAttribute('href') ?? '';
    if (/^\s*javascript:/i.test(href)) return text;
    const title = a.getAttribute('title')?.replace(/\s+/g, ' ').trim();
    return `[${text}](${escapeUrl(href)}${title ? ` "${title.replace(/"/g, '\\"')}"` : ''})`;
  },
};

const image: Rule = {
  filter: 'img',
  replacement: (_content, node) => {
    const img = node as unknown as DomNode;
    const src = img.getAttribute('src')?.trim();
    if (!src) return '';
    return `![${escapeLabel(img.getAttribute('alt') ?? '')}](${escapeUrl(src)})`;
  },
};

// turndown pads markers to four columns (`-   item`); we write `- item` / `1. item` and
// indent nested content by the marker's width, which CommonMark and GFM both accept.
const listItem: Rule = {
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
    // The trailing newlines become one, trimmed in one pass from the end: /\n+$/ is quadratic over a long inner run.
    const lead = content.replace(/^\n+/, '');
    const trimmed = trimEndOf(lead, '\n');
    const body = (trimmed.length < lead.length ? `${trimmed}\n` : lead).replace(/\n(?!$)/g, `\n${' '.repeat(marker.length)}`);
    const next = (li as unknown as { nextSibling: DomNode | null }).nextSibling;
    return marker + body + (next && !body.endsWith('\n') ? '\n' : '');
  },
};

// Definition lists: the term in bold on its own line, the definition as a paragraph.
const definitionTerm: Rule = {
  filter: 'dt',
  replacement: (content) => (content.trim() ? `\n\n**${content.trim()}**\n` : ''),
};

const definition: Rule = {
  filter: 'dd',
  replacement: (content) => (content.trim() ? `\n${content.trim()}\n\n` : ''),
};

const strikethrough: Rule = {
  filter: ['del', 's'],
  replacement: (content) => (content.trim() ? `~~${content}~~` : ''),
};

const taskListItem: Rule = {
  filter: (node) => {
    const n = node as unknown as DomNode;
    return n.nodeName === 'INPUT' && n.getAttribute('type') === 'checkbox' && n.parentNode?.nodeName === 'LI';
  },
  replacement: (_content, node) => ((node as unknown as DomNode).getAttribute('checked') !== null ? '[x] ' : '[ ] '),
};

/** The rules by name, in the order they are added. */
export const markdownRules: ReadonlyArray<readonly [string, Rule]> = [
  ['fencedCode', fencedCode],
  ['link', link],
  ['image', image],
  ['listItem', listItem],
  ['definitionTerm', definitionTerm],
  ['definition', definition],
  ['strikethrough', strikethrough],
  ['taskListItem', taskListItem],
];
