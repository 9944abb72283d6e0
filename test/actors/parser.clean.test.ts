/**
 * actors/parser/formats/clean.ts `removeNodes`: many nodes of one parent removed in one pass,
 * the siblings' links kept right (one at a time, 200,000 `<meta>`s in one `<head>` took minutes:
 * the hostile-content fuzz of 2026-12-03).
 */
import type { AnyNode, Element } from 'domhandler';
import { describe, expect, it } from 'vitest';
import { removeNodes } from '../../actors/parser/formats/clean.js';
import { loadHtml } from '../../actors/parser/formats/load-html.js';

const names = (nodes: readonly AnyNode[]) => nodes.map((n) => (n.type === 'tag' ? (n as Element).name : n.type));

describe('actors/parser/formats/clean removeNodes', () => {
  it("removes nodes of several parents at once, relinking each parent's remaining children", () => {
    const $ = loadHtml('<div id="a"><i></i><!--x--><b></b><!--y--><u></u></div><div id="b"><!--z--><s></s></div>');
    const a = $('#a')[0] as Element;
    const b = $('#b')[0] as Element;
    const comments = [...a.children, ...b.children].filter((n) => n.type === 'comment');
    removeNodes([...comments, comments[0] as AnyNode]);
    expect(names(a.children)).toEqual(['i', 'b', 'u']);
    expect(names(b.children)).toEqual(['s']);
    const [i, bold, u] = a.children;
    expect([i?.prev, i?.next, bold?.prev, bold?.next, u?.prev, u?.next]).toEqual([null, bold, i, u, bold, null]);
    expect(b.children[0]?.prev).toBeNull();
    for (const c of comments) expect([c.parent, c.prev, c.next]).toEqual([null, null, null]);
    expect($('body').html()).toBe('<div id="a"><i></i><b></b><u></u></div><div id="b"><s></s></div>');
  });

  it('removes 200,000 children of one parent', () => {
    const $ = loadHtml(`<head>${'<meta name="m" content="v"><title>t</title>'.repeat(100_000)}</head>`);
    const head = $('head')[0] as Element;
    removeNodes(head.children.filter((n) => n.type === 'tag' && (n as Element).name === 'meta'));
    expect(head.children).toHaveLength(100_000);
    expect(new Set(names(head.children))).toEqual(new Set(['title']));
  });
});
