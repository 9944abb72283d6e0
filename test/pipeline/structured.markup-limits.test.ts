/**
 * pipeline/structured/markup limits: a page's JSON-LD blocks are read up to MAX_JSON_LD_BLOCKS
 * and each reader keeps its first MAX_THINGS things (20,000 blocks held the parser's thread over
 * a second with a template to fill: the hostile-content fuzz of 2026-12-03); the page's meta
 * tags are read whatever the JSON-LD holds.
 */
import { describe, expect, it } from 'vitest';
import { loadHtml } from '../../actors/parser/formats/load-html.js';
import { isType, MAX_JSON_LD_BLOCKS, MAX_THINGS, readStructuredData } from '../../pipeline/structured/markup/index.js';

const product = (i: number) => `{"@type":"Product","name":"p${i}"}`;
const read = (head: string) => readStructuredData(loadHtml(`<html><head><meta property="og:title" content="The page">${head}</head><body><p>x</p></body></html>`), 'https://e.com/').things;

describe('pipeline/structured/markup limits', () => {
  it(`reads the first ${MAX_JSON_LD_BLOCKS} JSON-LD blocks, then the meta tags`, () => {
    const things = read(Array.from({ length: MAX_JSON_LD_BLOCKS + 50 }, (_, i) => `<script type="application/ld+json">${product(i)}</script>`).join(''));
    const products = things.filter((t) => isType(t, 'Product'));
    expect(products).toHaveLength(MAX_JSON_LD_BLOCKS);
    expect(products.at(-1)?.props.name).toEqual([`p${MAX_JSON_LD_BLOCKS - 1}`]);
    expect(things.at(-1)?.source).toBe('meta');
  });

  it(`keeps the first ${MAX_THINGS} things of one block's graph, then the meta tags`, () => {
    const things = read(`<script type="application/ld+json">{"@graph":[${Array.from({ length: MAX_THINGS + 500 }, (_, i) => product(i)).join(',')}]}</script>`);
    expect(things.filter((t) => isType(t, 'Product'))).toHaveLength(MAX_THINGS);
    expect(things.at(-1)?.source).toBe('meta');
  });
});
