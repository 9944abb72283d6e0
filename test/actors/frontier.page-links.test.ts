import { describe, expect, it } from 'vitest';
import { readPage } from '../../actors/frontier/page-links.js';

describe('actors/frontier/page-links', () => {
  it('reads links with their text against <base href>, cleaned and deduplicated, plus title and description', () => {
    const html = `<html><head><title> Home  page </title><meta name="Description" content="About us"><base href="/docs/"></head><body>
      <a href="intro?utm_source=x#top">Intro</a>
      <a href="intro"><span>Intro again</span></a>
      <a href="/img" title="Gallery"></a>
      <a href="/pic"><img src="p.png" alt="A picture"></a>
      <a href="/empty"></a><a href="/empty">Now with text</a>
      <a href="mailto:a@b.c">mail</a><a href="#x">top</a>
      <map><area href="/area" alt="x"></map>
    </body></html>`;
    const facts = readPage(html, 'https://example.com/start');
    expect(facts.title).toBe('Home page');
    expect(facts.description).toBe('About us');
    expect(facts.links).toEqual([
      { url: 'https://example.com/docs/intro', text: 'Intro' },
      { url: 'https://example.com/img', text: 'Gallery' },
      { url: 'https://example.com/pic', text: 'A picture' },
      { url: 'https://example.com/empty', text: 'Now with text' },
      { url: 'https://example.com/area' },
    ]);
  });
});
