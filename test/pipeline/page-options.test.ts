/**
 * pipeline/pages/options.ts: an event's scrape options decoded with the schema's defaults
 * filled in, each decoding a copy of its own (a reader may change what it got).
 */
import { describe, expect, it } from 'vitest';
import { decodeScrapeOptions, defaultScrapeOptions, SCRAPE_OPTION_DEFAULTS } from '../../pipeline/pages/options.js';

describe('pipeline/pages/options', () => {
  it('fills every default the options leave out, keeps what they set, in the defaults\' key order', () => {
    const decoded = decodeScrapeOptions(JSON.stringify({ formats: ['html'], timeout: 5000, headers: { a: 'b' } }));
    expect(decoded).toEqual({ ...SCRAPE_OPTION_DEFAULTS, formats: ['html'], timeout: 5000, headers: { a: 'b' } });
    expect(Object.keys(decoded as object).slice(0, Object.keys(SCRAPE_OPTION_DEFAULTS).length)).toEqual(Object.keys(SCRAPE_OPTION_DEFAULTS));
    expect(decodeScrapeOptions('')).toEqual(SCRAPE_OPTION_DEFAULTS);
    expect(decodeScrapeOptions('[1]')).toBeNull();
  });

  it('gives each decoding its own copy of the defaults', () => {
    const first = decodeScrapeOptions('{}');
    const second = defaultScrapeOptions();
    first?.formats.push('links');
    (second.formats as unknown[]).length = 0;
    expect(SCRAPE_OPTION_DEFAULTS.formats).toEqual(['markdown']);
    expect(decodeScrapeOptions('{}')?.formats).toEqual(['markdown']);
    expect(defaultScrapeOptions()).toEqual(SCRAPE_OPTION_DEFAULTS);
  });
});
