import { describe, expect, it } from 'vitest';
import { acceptLanguage, languagesFor } from '../../pipeline/runtime/net/locale.js';

describe('pipeline/runtime/net/locale', () => {
  it('maps countries to languages; languages given win', () => {
    expect(languagesFor({ country: 'de' })).toEqual(['de-DE', 'de']);
    expect(languagesFor({ country: 'JP', languages: ['en'] })).toEqual(['en']);
    expect(languagesFor({ country: 'ZZ' })).toEqual(['en-ZZ', 'en']);
    expect(acceptLanguage(['de-DE', 'de', 'en'])).toBe('de-DE,de;q=0.9,en;q=0.8');
  });
});
