/**
 * Feeds and the HTML in them, nested deep (the hostile-content fuzz of 2026-12-03): a feed 100,000
 * elements deep held the service's thread 25 s and then failed with a stack overflow (a 500);
 * an item whose HTML is as deep, seconds. A feed past MAX_FEED_DEPTH is not read (not a feed),
 * a page past MAX_PAGE_DEPTH names no feed, and an item's HTML is read by the tokenizer alone,
 * whatever its depth.
 */
import { describe, expect, it } from 'vitest';
import { feedLinks, MAX_FEED_DEPTH, MAX_PAGE_DEPTH, parseFeed } from '../../pipeline/clients/social/feeds-parse.js';
import { htmlText } from '../../pipeline/clients/social/html-text.js';

const DEEP = 100_000;
const escape = (html: string) => html.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

describe('pipeline/clients/social feeds nested deep', () => {
  it(`reads no feed nested deeper than ${MAX_FEED_DEPTH}, and one at that depth`, () => {
    const nested = (depth: number) => `<rss><channel><item><link>https://a.example/1</link></item>${'<x>'.repeat(depth)}</channel></rss>`;
    expect(parseFeed(nested(DEEP), 'https://a.example/feed')).toBeNull();
    expect(parseFeed(nested(MAX_FEED_DEPTH - 3), 'https://a.example/feed')?.items.map((i) => i.link)).toEqual(['https://a.example/1']);
  });

  it("reads an item's HTML of any depth as text, by the tokenizer alone", () => {
    const deepHtml = `${'<div>'.repeat(DEEP)}<p>Deep &amp; down</p>`;
    const feed = parseFeed(`<rss><channel><item><link>https://a.example/2</link><description>${escape(deepHtml)}</description></item></channel></rss>`, 'https://a.example/feed');
    expect(feed?.items[0]?.text).toBe('Deep & down');
    expect(htmlText('<p>One &#x27;two&#x27;</p><br/>three<![CDATA[ gone ]]><LI>four')).toBe("One 'two'\nthree\nfour");
  });

  it(`names no feed on a page nested deeper than ${MAX_PAGE_DEPTH}`, () => {
    const head = '<link rel="alternate" type="application/rss+xml" href="/rss.xml">';
    expect(feedLinks(`${head}${'<div>'.repeat(DEEP)}`, 'https://a.example/')).toEqual([]);
    expect(feedLinks(`${head}${'<div>'.repeat(10)}`, 'https://a.example/')).toEqual(['https://a.example/rss.xml']);
  });
});
