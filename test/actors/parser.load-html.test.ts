/**
 * actors/parser/formats/load-html: pages parsed by htmlparser2 get the document shape an
 * HTML5 parser gives them (html > head + body, table parts in place, an unclosed link
 * closed by the next one), which metadata, main content and markdown rely on.
 */
import { load } from 'cheerio';
import { describe, expect, it } from 'vitest';
import { bodyOf, loadHtml, MAX_PAGE_DEPTH, releaseHtml } from '../../actors/parser/formats/load-html.js';

const shaped = (html: string): string => loadHtml(html).html();

describe('actors/parser/formats/load-html', () => {
  it.each([
    ['a fragment gets html, head and body', '<p>x', '<html><head></head><body><p>x</p></body></html>'],
    [
      'an unclosed head ends at the first body content; what follows </html> joins the body',
      '<html><head><title>T</title><meta name="a" content="b"><div>in head</div></head><body><p>b</p></body></html><p>after</p>',
      '<html><head><title>T</title><meta name="a" content="b"></head><body><div>in head</div><p>b</p><p>after</p></body></html>',
    ],
    ['rows written in the table get a tbody', '<table><tr><td>a<td>b</tr><tr><td>c</table>', '<html><head></head><body><table><tbody><tr><td>a</td><td>b</td></tr><tr><td>c</td></tr></tbody></table></body></html>'],
    ['cells in a table get a row; a cell outside any table is ignored', '<table><td>x</td></table><div><td>stray</td></div>', '<html><head></head><body><table><tbody><tr><td>x</td></tr></tbody></table><div>stray</div></body></html>'],
    ['cols get a colgroup', '<table><col><col><tr><th>h</th></tr></table>', '<html><head></head><body><table><colgroup><col><col></colgroup><tbody><tr><th>h</th></tr></tbody></table></body></html>'],
    ['a link opening inside an unclosed link closes it', '<p><a href=1>x<b>y<a href=2>z</a>w</b>v</a>q</p>', '<html><head></head><body><p><a href="1">x<b>y</b></a><b><a href="2">z</a>w</b>vq</p></body></html>'],
    ['processing instructions in the page are dropped; void and empty attributes serialize as HTML', '<div><?xml:namespace prefix=o?><br><input checked></div>', '<html><head></head><body><div><br><input checked=""></div></body></html>'],
    ['a second body or a nested html tag adds no element', '<html><body>a<div><html><body>b</body></html></div></body><body>c</body></html>', '<html><head></head><body>a<div>b</div>c</body></html>'],
    [
      '<![CDATA[ in the page is a bogus comment ending at the first > (the page after it is read, as parse5 reads it)',
      '<body><![CDATA[ nothing here ><div class="wrap"></div><p>posts</p><p>a<![CDATA[ x > y ]]>b</p></body>',
      '<html><head></head><body><div class="wrap"></div><p>posts</p><p>a y ]]&gt;b</p></body></html>',
    ],
  ])('%s', (_name, html, expected) => {
    expect(shaped(html)).toBe(expected);
  });

  it('reads <![CDATA[ in the body as parse5 does, and keeps it a section inside svg', () => {
    const html = '<!doctype html><html><head></head><body><![CDATA[\n<div><p>Hello</p></div><p>more</p></body></html>';
    const parse5 = load(html);
    parse5('body').contents().filter((_i, n) => n.type === 'comment').remove(); // a bogus comment: the load drops it
    expect(loadHtml(html)('body').html()).toBe(parse5('body').html());
    const svg = loadHtml('<svg><text><![CDATA[ a > b ]]></text></svg><p>after</p>');
    expect(svg('svg').text()).toBe('');
    expect(svg('p').text()).toBe('after');
  });

  it('gives the same document as parse5 for well-formed pages (the doctype is kept as written)', () => {
    const html = '<!doctype html><html lang="en"><head><title>T &amp; U</title></head><body><h1>A</h1><p>x&nbsp;<a href="/u?a=1&amp;b=2">y</a></p><table><thead><tr><th>h</th></tr></thead><tbody><tr><td>1</td></tr></tbody></table></body></html>';
    const ours = loadHtml(html);
    const parse5 = load(html);
    expect(ours.html(ours('html'))).toBe(parse5.html(parse5('html')));
  });

  it('finds the body through html', () => {
    const $ = loadHtml('<title>t</title><p>x</p>');
    expect(bodyOf($)?.name).toBe('body');
    expect($(bodyOf($)).text()).toBe('x');
  });

  it('reads a page nested MAX_PAGE_DEPTH deep, and stops at the first element deeper with page_too_complex, without the square of the depth', () => {
    // Inside <html><body>, `n` divs put the innermost at depth n + 2.
    const nested = (n: number) => `<html><body>${'<div>'.repeat(n)}x${'</div>'.repeat(n)}</body></html>`;
    expect(loadHtml(nested(MAX_PAGE_DEPTH - 2)).text()).toBe('x');
    expect(() => loadHtml(nested(MAX_PAGE_DEPTH - 1))).toThrow(expect.objectContaining({ code: 'page_too_complex' }));
    // 200,000 deep: stopped at 513 (htmlparser2 alone would shift an array of up to 200,000 open elements per tag).
    expect(() => loadHtml(nested(200_000))).toThrow(expect.objectContaining({ code: 'page_too_complex' }));
    // Elements that close themselves do not pile up: 5,000 unclosed <li> and <p> are siblings.
    expect(loadHtml(`<ul>${'<li>item'.repeat(5_000)}</ul>${'<p>para'.repeat(5_000)}`)('li, p')).toHaveLength(10_000);
    // htmlparser2 nests `<li><p>` left open (a browser would not): 500 such items, 1,000 levels, are still read.
    expect(loadHtml(`<ul>${'<li><p>item'.repeat(500)}</ul>`)('li')).toHaveLength(500);
  });

  it('releaseHtml lets go of the tree from its root, leaving what was already read as it was', () => {
    const $ = loadHtml('<title>T</title><main><p>one</p><p>two</p></main>');
    const main = $('main')[0];
    releaseHtml($);
    expect($.root()[0]?.children).toEqual([]);
    expect($('p')).toHaveLength(0);
    expect(main && $(main).text()).toBe('onetwo');
  });
});
