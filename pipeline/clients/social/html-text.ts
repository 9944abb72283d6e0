/**
 * Plain text of the small HTML fragments platforms put in their answers (a Hacker News
 * comment's `<p>` paragraphs, `<a>` links, `&#x27;` entities): tags dropped, entities decoded,
 * a paragraph or line break a newline, runs of spaces one. htmlparser2's tokenizer: linear,
 * no regular expression over the input.
 */
import { Parser } from 'htmlparser2';

const BREAKS = new Set(['p', 'br', 'div', 'li', 'pre', 'blockquote', 'tr']);

export function htmlText(html: string): string {
  let out = '';
  const parser = new Parser(
    {
      ontext: (text) => void (out += text),
      onopentag: (name) => {
        if (BREAKS.has(name) && out !== '' && !out.endsWith('\n')) out += '\n';
      },
    },
    { decodeEntities: true },
  );
  parser.write(html);
  parser.end();
  return out
    .split('\n')
    .map((line) => line.replace(/[ \t\u00a0]+/g, ' ').trim())
    .filter((line) => line !== '')
    .join('\n');
}
