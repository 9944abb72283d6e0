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
 * Every pattern is fixed and linear (bounded or negated character classes, no nested
 * quantifiers): page text is outside input.
 */

const IMAGE = /!\[[^\]\n]{0,500}\]\([^)\n]{0,2000}\)/g;
const LINK = /\[([^\]\n]{0,500})\]\([^)\n]{0,2000}\)/g;
const AUTOLINK = /<https?:[^>\s]{0,2000}>/g;
const MARKS = /[#*_`>|~=]+|-{3,}/g;
const SPACE = /\s+/g;

export function markdownText(markdown: string): string {
  return markdown.replace(IMAGE, ' ').replace(LINK, '$1').replace(AUTOLINK, ' ').replace(MARKS, ' ').replace(SPACE, ' ').trim();
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
