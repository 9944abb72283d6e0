/**
 * actors/parser/formats/turndown-tree: markdown converted from the parsed tree is the
 * markdown of the serialized HTML, on structures where a reparse could differ and on a
 * sample of the trafilatura-eval corpus (when present); where a reparse would change the
 * tree, the tree is refused and the HTML is converted.
 */
import { load, type CheerioAPI } from 'cheerio';
import type { Element } from 'domhandler';
import { describe, expect, it } from 'vitest';
import { finishRoot, removeNonContent } from '../../actors/parser/formats/clean.js';
import { elementToMarkdown, htmlToMarkdown, tidyMarkdown } from '../../actors/parser/formats/markdown.js';
import { markdownRules } from '../../actors/parser/formats/markdown-rules.js';
import { turndownTree } from '../../actors/parser/formats/turndown-tree.js';
import { extractMainContent } from '../../actors/parser/main-content/index.js';
import { corpusDir, readHtml, trafilaturaPages } from '../../bench/corpus.js';

/** Both conversions of `el`; the first is what the parser did before trees were reused. */
function both($: CheerioAPI, el: Element): { html: string; tree: string } {
  return { html: htmlToMarkdown($.html(el)), tree: elementToMarkdown(el, () => $.html(el)) };
}

function body(html: string): { $: CheerioAPI; el: Element } {
  const $ = load(html);
  return { $, el: $('body')[0] as Element };
}

describe('actors/parser/formats/turndown-tree', () => {
  it.each([
    ['inline formatting and whitespace', '<p>  a <b> bold </b><i>it</i>  <code>x`y</code>\n\n<a href="/u" title="t">link <em>text</em></a> </p>'],
    ['lists, nested and ordered', '<ul><li>one<ul><li>two</li></ul></li><li>three</li></ul><ol start="4"><li><p>four</p></li><li>five</li></ol>'],
    ['tables with and without headings', '<table><caption>Cap</caption><thead><tr><th>a</th><th>b</th></tr></thead><tbody><tr><td>1|2</td><td colspan="2">x</td></tr></tbody></table><table> <tr><td>solo</td></tr> </table>'],
    ['code blocks keep leading newlines but one', '<pre>\n\ncode\n  indented</pre><pre><code class="language-js">\nlet a = 1;</code></pre><textarea>\nnote</textarea><pre>\n</pre>'],
    ['text split by a removed comment', '<p>- one<!-- c -->- two</p><p># not<!---->a heading</p>'],
    ['character references for CR and NBSP', '<pre>a&#13;\nb&#13;c</pre><p>x&nbsp;&nbsp;y&#13;z</p>'],
    ['blank elements and voids', '<div> <span> </span><img src="/i.png" alt="i"> </div><p><a href="/e"> </a></p><div><br></div>'],
    ['svg and math', '<p>a <svg viewBox="0 0 1 1"><a xlink:href="#x"><text> t </text></a><foreignObject><b>in</b></foreignObject></svg> b <math><mi>x</mi></math></p>'],
    ['definition lists, strike, task lists', '<dl><dt>Term</dt><dd>Def</dd></dl><p><del>old</del> <s>x</s></p><ul><li><input type="checkbox" checked> done</li></ul>'],
    ['headings and block quotes', '<h1>One</h1><h3>Three <small>s</small></h3><blockquote><p>q</p><blockquote>qq</blockquote></blockquote><hr>'],
  ])('gives the same markdown as the HTML: %s', (_name, html) => {
    const { $, el } = body(`<!doctype html><html><body>${html}</body></html>`);
    const out = both($, el);
    expect(turndownTree(el)).not.toBeNull();
    expect(out.tree).toBe(out.html);
  });

  it.each([
    ['a table cell as the root', '<table><tr><td id="r"><p>cell</p></td></tr></table>', '#r'],
    ['a row as the root', '<table><tr id="r"><td>a</td><td>b</td></tr></table>', '#r'],
    ['nested links', '<div id="r"><a href="/a">x</a></div>', '#r', ($: CheerioAPI) => $('a').append('<span></span>').find('span').append($('<a href="/b">y</a>'))],
    ['text inside a table', '<div id="r"><table><tr><td>a</td></tr></table></div>', '#r', ($: CheerioAPI) => $('tbody').prepend('stray')],
    ['a cell moved out of its row', '<div id="r"><table><tr><td>a</td></tr></table></div>', '#r', ($: CheerioAPI) => $('#r').append($('td'))],
  ] as const)('falls back to the HTML for %s', (_name, html, selector, change?: ($: CheerioAPI) => unknown) => {
    const $ = load(`<!doctype html><html><body>${html}</body></html>`);
    change?.($);
    const el = $(selector)[0] as Element;
    expect(turndownTree(el)).toBeNull();
    const out = both($, el);
    expect(out.tree).toBe(out.html);
  });

  const pages = trafilaturaPages();
  const sample = (pages ?? []).filter((p) => p.index % 25 === 3);
  it.skipIf(!pages)(`gives the same markdown on ${sample.length} corpus pages, main content and whole body (needs ${corpusDir()})`, () => {
    let compared = 0;
    for (const page of sample) {
      for (const main of [true, false]) {
        const $ = load(readHtml(page.path));
        removeNonContent($);
        const el = (main ? extractMainContent($) : $('body'))[0];
        if (!el) continue;
        finishRoot($, el, { base: page.url, removeBase64Images: true });
        const out = both($, el);
        expect(out.tree, page.path).toBe(out.html);
        compared += 1;
      }
    }
    expect(compared).toBeGreaterThan(60);
  });
});

// Each input made a regex of the markdown rules, tidyMarkdown or finishRoot scan a long inner
// run to its end again from every character (quadratic: over a minute at these sizes). The
// results are those the regexes gave.
describe('actors/parser/formats: hostile text is converted in one pass', () => {
  // The rules themselves, and the whole conversion: turndown's own `postProcess` trimmed the
  // whole output with /[\t\r\n\s]+$/, quadratic over a long inner run of whitespace (200,000
  // line breaks in a paragraph: minutes); patches/turndown+7.2.5.patch makes it `trimEnd()`.
  const rule = (name: string) => (markdownRules.find(([n]) => n === name)?.[1].replacement ?? (() => '')) as (content: string, node: unknown) => string;
  const node = (nodeName: string, fields: Record<string, unknown> = {}) => ({ nodeName, nodeType: 1, childNodes: [], parentNode: null, nextSibling: null, textContent: '', getAttribute: () => null, ...fields });

  it('code blocks and list items with a long inner run of newlines (/\\n+$/)', () => {
    const newlines = '\n'.repeat(200_000);
    expect(rule('fencedCode')('', node('PRE', { textContent: `a${newlines}b\n\n` }))).toBe(`\n\n\`\`\`\na${newlines}b\n\`\`\`\n\n`);
    expect(rule('fencedCode')('', node('PRE', { textContent: '\nx\n\n' }))).toBe('\n\n```\nx\n```\n\n');
    const li = node('LI', { parentNode: node('UL') });
    expect(rule('listItem')(`\n\na${newlines}b\n\n\n`, li)).toBe(`- a${'\n  '.repeat(200_000)}b\n`);
    expect(rule('listItem')('a\nb', li)).toBe('- a\n  b');
  });

  it('a link holding a long run of spaces (/\\s*\\n\\s*/g)', () => {
    const spaces = ' '.repeat(150_000);
    const a = node('A', { getAttribute: (name: string) => (name === 'href' ? '/x' : null) });
    expect(rule('link')(`\n\n\`\`\`\na${spaces}b\n\`\`\`\n\n`, a)).toBe(`[\`\`\` a${spaces}b \`\`\`](/x)`);
    expect(rule('link')('## Title \n \n a \t b\n', a)).toBe('[Title a \t b](/x)');
  });

  it("a whole page with a long inner run of whitespace (turndown's own trim, patched)", () => {
    const n = 200_000;
    expect(htmlToMarkdown(`<p>a${'<br>'.repeat(n)}b</p>`)).toBe('a  \n\nb');
    expect(htmlToMarkdown(`<p>a${'&nbsp;'.repeat(n)}b</p>`)).toBe(`a${'\u00a0'.repeat(n)}b`);
    expect(htmlToMarkdown(`<pre>a${'\n'.repeat(n)}b</pre>`)).toBe(`\`\`\`\na${'\n'.repeat(n)}b\n\`\`\``);
    expect(htmlToMarkdown(`<p>a${'&nbsp;'.repeat(3)}</p>${'\n'.repeat(3)}`)).toBe('a');
  });

  it('a line with a long inner run of spaces (/[ \\t]+$/)', () => {
    const spaces = ' '.repeat(200_000);
    expect(tidyMarkdown(`a${spaces}b \t \nc${spaces}d\t\n\`\`\` \t\nx\n\`\`\``)).toBe(`a${spaces}b  \nc${spaces}d\n\`\`\`\nx\n\`\`\``);
  });

  it('a style with unclosed url(data: (/url\\(\\s*["\']?\\s*data:[^)]*\\)/gi)', () => {
    const unclosed = `color: red; background: url( 'data:image/png;base64,AAAA') no-repeat; x: url(data:a ${'url(data:'.repeat(60_000)}`;
    const spaced = `background: url(${' '.repeat(150_000)}x) data:`;
    const $ = load(`<body><div id="a" style="${unclosed}">a</div><div id="b" style="${spaced}">b</div></body>`);
    finishRoot($, $('body')[0] as Element, { base: 'https://example.com/', removeBase64Images: true });
    expect($('#a').attr('style')).toBe(`color: red; background: none no-repeat; x: url(data:a ${'url(data:'.repeat(60_000)}`);
    expect($('#b').attr('style')).toBe(spaced);
  });
});
