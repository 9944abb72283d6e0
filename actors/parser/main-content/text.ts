/**
 * Plain text of a DOM subtree as a reader sees it: inline content joined as written, block
 * elements and `<br>` on their own lines, table cells separated by a tab, whitespace
 * collapsed except inside `<pre>`, blank lines dropped. Used for scoring and as the `text`
 * view of the main content.
 */
import { type AnyNode, type Element, type ParentNode, isElement, tagOf } from './dom.js';
import { BLOCK_TAGS, NON_CONTENT_TAGS } from './patterns.js';

/** Soft hyphens and zero-width characters: invisible to readers, they break words apart. */
const INVISIBLE = /[\u00ad\u200b\u2060\ufeff]/g;

/** The white space `plainText` collapses to one space within a line (outside `<pre>`). */
export const COLLAPSIBLE_SPACE = /[ \t\n\r\f]+/g;

/** Concatenated raw text of a subtree (no layout), whitespace collapsed and trimmed. */
export function textOf(node: AnyNode): string {
  const parts: string[] = [];
  const walk = (n: AnyNode) => {
    if (n.type === 'text') parts.push((n as unknown as { data: string }).data);
    else if (isElement(n) && !NON_CONTENT_TAGS.has(tagOf(n))) for (const c of n.children) walk(c);
  };
  walk(node);
  return parts.join('').replace(/\s+/g, ' ').trim();
}

/** Plain text of `nodes` (e.g. the main-content root), block elements separated by newlines. */
export function plainText(nodes: Iterable<AnyNode>): string {
  const out: string[] = [];
  const walk = (n: AnyNode, pre: boolean) => {
    if (n.type === 'text') {
      const data = (n as unknown as { data: string }).data;
      out.push(pre ? data : data.replace(COLLAPSIBLE_SPACE, ' '));
      return;
    }
    if (n.type === 'root') {
      for (const c of (n as ParentNode).children) walk(c, pre);
      return;
    }
    if (!isElement(n)) return;
    const tag = tagOf(n);
    if (NON_CONTENT_TAGS.has(tag)) return;
    if (tag === 'br') {
      out.push('\n');
      return;
    }
    const cell = tag === 'td' || tag === 'th';
    const block = !cell && BLOCK_TAGS.has(tag);
    if (block) out.push('\n');
    else if (cell) out.push('\t');
    for (const c of n.children) walk(c, pre || tag === 'pre');
    if (block) out.push('\n');
    else if (cell) out.push('\t');
  };
  for (const n of nodes) walk(n, false);
  return out
    .join('')
    .split('\n')
    .map((line) => line.replace(/[ \t]+/g, (m) => (m.includes('\t') ? '\t' : ' ')).trim())
    .filter(Boolean)
    .join('\n')
    .replace(INVISIBLE, '');
}

/**
 * How many characters other than whitespace (as `textOf` collapses it) the text under `el`
 * holds, scripts and styles left out; the count stops past `max` (a bound, not an exact figure
 * beyond it), so a long block is not walked to its end to learn that it is long.
 */
export function nonSpaceCount(el: Element, max = Number.POSITIVE_INFINITY): number {
  let n = 0;
  const walk = (node: AnyNode): boolean => {
    if (node.type === 'text') {
      const data = (node as unknown as { data: string }).data;
      for (let i = 0; i < data.length; i += 1) {
        const c = data.charCodeAt(i);
        if (c !== 32 && c !== 10 && c !== 9 && c !== 13 && c !== 12 && c !== 11 && c !== 160 && !(c >= 0x2000 && c <= 0x200a) && c !== 0x1680 && c !== 0x2028 && c !== 0x2029 && c !== 0x202f && c !== 0x205f && c !== 0x3000 && c !== 0xfeff && ++n > max) return false;
      }
      return true;
    }
    if (isElement(node) && !NON_CONTENT_TAGS.has(tagOf(node))) for (const c of node.children) if (!walk(c)) return false;
    return true;
  };
  walk(el);
  return n;
}
