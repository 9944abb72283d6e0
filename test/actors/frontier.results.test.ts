import { describe, expect, it } from 'vitest';
import { rankLinks } from '../../actors/frontier/results.js';

describe('actors/frontier/results', () => {
  const links = [
    { url: 'https://example.com/' },
    { url: 'https://example.com/about', title: 'Our Pricing story' },
    { url: 'https://example.com/pricing' },
    { url: 'https://example.com/caf%C3%A9' },
    { url: 'https://example.com/PRICING/plans' },
  ];

  it('filters on address or title, case-insensitively, address matches first', () => {
    expect(rankLinks(links, 'pricing', 10).map((l) => l.url)).toEqual([
      'https://example.com/pricing',
      'https://example.com/PRICING/plans',
      'https://example.com/about',
    ]);
    expect(rankLinks(links, 'Café', 10).map((l) => l.url)).toEqual(['https://example.com/caf%C3%A9']);
    expect(rankLinks(links, 'nothing', 10)).toEqual([]);
  });

  it('without search keeps the order found; limit cuts', () => {
    expect(rankLinks(links, null, 10)).toEqual(links);
    expect(rankLinks(links, '  ', 2)).toEqual(links.slice(0, 2));
    expect(rankLinks(links, 'pricing', 1).map((l) => l.url)).toEqual(['https://example.com/pricing']);
  });
});
