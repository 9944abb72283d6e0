/**
 * Plain text of a page for the local index: what is tokenized and what snippets are cut from.
 *
 * - `markdownText`: the parser's markdown without its syntax — images dropped, links reduced to
 *   their text (their URLs would otherwise fill the index with `https`, `www` and path words),
 *   emphasis, heading, quote and table marks and rules removed, whitespace collapsed.
 * - `htmlText`: an HTML fragment's text — tags, comments, `<script>` and `<style>` bodies
 *   removed (each tag leaves a space), the common character references decoded, whitespace
 *   collapsed. A single forward scan; it does not build a tree.
 *
 * Page text is outside input: every pattern is fixed and linear (negated character classes, no
 * nested quantifiers), and links and images are found by a scan (`markdownLinks`) rather than
 * by bounded patterns, which redid up to 2,500 characters from every `[` (1.75 s over a
 * crafted 200,000-character page).
 */

import { nextStop } from '../../runtime/scan.js';

const MAX_LABEL = 500;
const MAX_TARGET = 2_000;
const MARKS = /[#*_`>|~=]+|-{3,}/g;
const SPACE = /\s+/g;

/**
 * `text` with each markdown image (`opener` `![`) dropped for a space, or each link (`opener`
 * `[`) reduced to its text, as `/!\[[^\]\n]{0,500}\]\([^)\n]{0,2000}\)/g` and
 * `/\[([^\]\n]{0,500})\]\([^)\n]{0,2000}\)/g` replace them: left to right, a match at an
 * opener when its first `]` or newline is a `]` within 500 characters, followed by `(`, whose
 * first `)` or newline is a `)` within 2,000.
 */
function markdownLinks(text: string, opener: '![' | '['): string {
  const labels = nextStop(text, /[\]\n]/g);
  const targets = nextStop(text, /[)\n]/g);
  const out: string[] = [];
  let copied = 0;
  let at = text.indexOf(opener);
  while (at !== -1) {
    const label = at + opener.length;
    const close = labels(label);
    if (close - label <= MAX_LABEL && text[close] === ']' && text[close + 1] === '(') {
      const end = targets(close + 2);
      if (end - (close + 2) <= MAX_TARGET && text[end] === ')') {
        out.push(text.slice(copied, at), opener === '![' ? ' ' : text.slice(label, close));
        copied = end + 1;
        at = text.indexOf(opener, copied);
        continue;
      }
    }
    at = text.indexOf(opener, at + 1);
  }
  if (copied === 0) return text;
  out.push(text.slice(copied));
  return out.join('');
}

/** `text` with each `<http:…>` / `<https:…>` autolink (`/<https?:[^>\s]{0,2000}>/g`) dropped for a space. */
function withoutAutolinks(text: string): string {
  const ends = nextStop(text, /[>\s]/g);
  const out: string[] = [];
  let copied = 0;
  let at = text.indexOf('<http');
  while (at !== -1) {
    const scheme = text.startsWith('http:', at + 1) ? 6 : text.startsWith('https:', at + 1) ? 7 : 0;
    if (scheme > 0) {
      const end = ends(at + scheme);
      if (end - (at + scheme) <= MAX_TARGET && text[end] === '>') {
        out.push(text.slice(copied, at), ' ');
        copied = end + 1;
        at = text.indexOf('<http', copied);
        continue;
      }
    }
    at = text.indexOf('<http', at + 1);
  }
  if (copied === 0) return text;
  out.push(text.slice(copied));
  return out.join('');
}

export function markdownText(markdown: string): string {
  return withoutAutolinks(markdownLinks(markdownLinks(markdown, '!['), '[')).replace(MARKS, ' ').replace(SPACE, ' ').trim();
}

const RAW_TEXT_END: Readonly<Record<string, RegExp>> = { script: /<\/script\s*>/gi, style: /<\/style\s*>/gi };
const RAW_TEXT_START = /^<(script|style)[\s>/]/i;
const REFERENCE = /&(#x[0-9a-f]{1,6}|#[0-9]{1,7}|[a-z]{2,8});/gi;
const NAMED: Readonly<Record<string, string>> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };

function decodeReference(whole: string, body: string): string {
  if (body[0] !== '#') return NAMED[body.toLowerCase()] ?? whole;
  const code = body[1] === 'x' || body[1] === 'X' ? Number.parseInt(body.slice(2), 16) : Number.parseInt(body.slice(1), 10);
  return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : ' ';
}

/** Where the markup starting at `lt` (a `<`) ends: after its closing `>`, comment end or raw-text end tag. */
function markupEnd(html: string, lt: number): number {
  if (html.startsWith('<!--', lt)) {
    const close = html.indexOf('-->', lt + 4);
    return close === -1 ? html.length : close + 3;
  }
  const gt = html.indexOf('>', lt + 1);
  if (gt === -1) return html.length;
  const raw = RAW_TEXT_START.exec(html.slice(lt, lt + 8))?.[1]?.toLowerCase();
  const endTag = raw ? RAW_TEXT_END[raw] : undefined;
  if (!endTag) return gt + 1;
  endTag.lastIndex = gt + 1;
  const found = endTag.exec(html);
  return found ? endTag.lastIndex : html.length;
}

export function htmlText(html: string): string {
  const parts: string[] = [];
  let at = 0;
  while (at < html.length) {
    const lt = html.indexOf('<', at);
    if (lt === -1) {
      parts.push(html.slice(at));
      break;
    }
    parts.push(html.slice(at, lt), ' ');
    at = markupEnd(html, lt);
  }
  return parts.join('').replace(REFERENCE, decodeReference).replace(SPACE, ' ').trim();
}
