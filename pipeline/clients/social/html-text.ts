/**
 * Plain text of the small HTML fragments platforms put in their answers (a Hacker News
 * comment's `<p>` paragraphs, `<a>` links, `&#x27;` entities) and feeds carry (an item's
 * `description` or `content:encoded`): tags dropped, entities decoded, a paragraph or line break
 * a newline, runs of spaces one. htmlparser2's tokenizer alone: linear, no regular expression
 * over the input, and no stack of open elements (its Parser keeps one it shifts and unshifts,
 * so a fragment 100,000 elements deep held the service's thread for seconds).
 */
import { Tokenizer } from 'htmlparser2';

const BREAKS = new Set(['p', 'br', 'div', 'li', 'pre', 'blockquote', 'tr']);
const ignore = () => undefined;

export function htmlText(html: string): string {
  let out = '';
  const tokenizer = new Tokenizer(
    { decodeEntities: true },
    {
      ontext: (start, end) => void (out += html.slice(start, end)),
      ontextentity: (codepoint) => void (out += String.fromCodePoint(codepoint)),
      onopentagname: (start, end) => {
        if (BREAKS.has(html.slice(start, end).toLowerCase()) && out !== '' && !out.endsWith('\n')) out += '\n';
      },
      // A CDATA section is a comment in HTML, as the Parser reads it.
      oncdata: ignore,
      onattribdata: ignore,
      onattribentity: ignore,
      onattribend: ignore,
      onattribname: ignore,
      onclosetag: ignore,
      oncomment: ignore,
      ondeclaration: ignore,
      onend: ignore,
      onopentagend: ignore,
      onprocessinginstruction: ignore,
      onselfclosingtag: ignore,
    },
  );
  tokenizer.write(html);
  tokenizer.end();
  return out
    .split('\n')
    .map((line) => line.replace(/[ \t\u00a0]+/g, ' ').trim())
    .filter((line) => line !== '')
    .join('\n');
}
