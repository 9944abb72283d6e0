/**
 * pipeline/mentions/match: keywords on word boundaries (multi-word, Unicode, signs), exclusions,
 * the language filter with declared and detected languages (German, French, Spanish; short
 * texts kept), the context rule on the Mercury namesakes and a few more, and a 10,000-post run
 * against a 20-keyword watch (it must finish; no time is asserted).
 */
import { describe, expect, it } from 'vitest';
import type { FoundPost } from '../../pipeline/clients/social/types.js';
import { compileWatch, containsTerm, detectLanguage, matchPost, normalizeText, primaryLanguage, type WatchTerms } from '../../pipeline/mentions/match.js';

let ids = 0;
function post(text: string, fields: Partial<FoundPost> = {}): FoundPost {
  ids++;
  return { platform: 'reddit', externalId: `p${ids}`, url: `https://example.test/p${ids}`, author: null, title: null, text, publishedAtMs: 0, lang: null, ...fields };
}

const watch = (fields: Partial<WatchTerms> & Pick<WatchTerms, 'keywords'>): WatchTerms => ({ excludeKeywords: [], competitors: [], languages: null, context: null, ...fields });

describe('pipeline/mentions/match: keywords', () => {
  it('matches case-insensitively on word boundaries: "Go" is not found in "good"', () => {
    const go = watch({ keywords: ['Go'] });
    expect(matchPost(post('This is good stuff, gone and going'), go)).toMatchObject({ keep: false, reason: 'no_keyword', matchedKeywords: [] });
    expect(matchPost(post('Rewrote the service in GO last week.'), go)).toMatchObject({ keep: true, reason: 'matched', matchedKeywords: ['Go'] });
    expect(matchPost(post('go, rust or zig?'), go).keep).toBe(true);
    expect(matchPost(post('(go)'), go).keep).toBe(true);
    expect(matchPost(post('acmecorp and xacme'), watch({ keywords: ['acme'] })).keep).toBe(false);
    expect(matchPost(post('v2 of acme2 ships'), watch({ keywords: ['acme'] })).keep).toBe(false);
    expect(matchPost(post('the acme_bot posted'), watch({ keywords: ['acme'] })).keep).toBe(false);
    expect(matchPost(post("Acme's new plan"), watch({ keywords: ['acme'] })).keep).toBe(true);
  });

  it('matches keywords that start or end with a sign as written', () => {
    expect(containsTerm('I write C++ daily', 'C++')).toBe(true);
    expect(containsTerm('I write abc++ daily', 'C++')).toBe(false);
    expect(containsTerm('thanks @acme!', '@acme')).toBe(true);
    expect(containsTerm('thanks @acmecorp!', '@acme')).toBe(false);
    expect(containsTerm('loving it #acme', '#acme')).toBe(true);
    expect(containsTerm('mail me at support@acme.io', 'acme.io')).toBe(true);
    expect(containsTerm('.NET 8 is out', '.net')).toBe(true);
    expect(containsTerm('dotnet is out', '.net')).toBe(false);
  });

  it('matches a multi-word keyword across any whitespace, and never across title and text', () => {
    const w = watch({ keywords: ['Acme  Cloud'] });
    expect(matchPost(post('we moved to acme\n\tcloud today'), w).keep).toBe(true);
    expect(matchPost(post('acme\u00a0cloud is up'), w).keep).toBe(true);
    expect(matchPost(post('acme-cloud is up'), w).keep).toBe(false);
    expect(matchPost(post('cloud costs', { title: 'Why we left Acme' }), w).keep).toBe(false);
    expect(matchPost(post('nothing here', { title: 'Acme Cloud pricing' }), w).matchedKeywords).toEqual(['Acme  Cloud']);
  });

  it('is Unicode-aware: NFKC, full-width forms, German and Greek case, scripts without spaces', () => {
    expect(normalizeText('ＡＣＭＥ\u00a0 Ｃｌｏｕｄ')).toBe('acme cloud');
    expect(containsTerm('Ich liebe ＡＣＭＥ!', 'acme')).toBe(true);
    expect(containsTerm('Die Straße ist gesperrt', 'STRASSE')).toBe(false); // lower case, not case folding
    expect(containsTerm('Wir nutzen Größenwahn', 'größenwahn')).toBe(true);
    expect(containsTerm('ΑΘΗΝΑ 2024', 'αθηνα')).toBe(true);
    expect(containsTerm('cafe\u0301 au lait', 'café')).toBe(true); // decomposed é composed by NFKC
    expect(containsTerm('cafés', 'café')).toBe(false);
    expect(containsTerm('café', 'cafe')).toBe(false); // diacritics matter
    expect(containsTerm('Acmeの新しいバージョン', 'acme')).toBe(true);
    expect(containsTerm('Acme는 좋아요', 'Acme')).toBe(true);
    expect(containsTerm('メルカリで買った', 'メルカリ')).toBe(true);
    expect(containsTerm('emoji 🚀acme🚀', 'acme')).toBe(true);
    expect(containsTerm('𝐚𝐜𝐦𝐞 styled', 'acme')).toBe(true); // mathematical bold letters fold under NFKC
  });

  it('reports every keyword found, as the watch spells them, and ignores blank or repeated ones', () => {
    const w = watch({ keywords: ['Acme', 'acme', '  ', 'Globex Pro', '@acme'] });
    expect(matchPost(post('@acme vs globex   pro'), w).matchedKeywords).toEqual(['Acme', 'Globex Pro', '@acme']);
    expect(compileWatch(w).keywords.map((t) => t.text)).toEqual(['acme', 'globex pro', '@acme']);
  });
});

describe('pipeline/mentions/match: exclusions', () => {
  it('drops a post containing any exclude keyword, matched the same way', () => {
    const w = watch({ keywords: ['Mercury'], excludeKeywords: ['Freddie', 'retrograde', 'thermometer'] });
    expect(matchPost(post('Freddie Mercury live at Wembley'), w)).toMatchObject({ keep: false, reason: 'excluded', matchedKeywords: ['Mercury'] });
    expect(matchPost(post('MERCURY RETROGRADE again'), w).reason).toBe('excluded');
    expect(matchPost(post('Mercury thermometers are banned'), w).reason).toBe('matched'); // "thermometers" is another word
    expect(matchPost(post('Paid the team with Mercury'), w).reason).toBe('matched');
  });

  it('reads the keywords first: a post without one is no_keyword even when it holds an exclusion', () => {
    expect(matchPost(post('Freddie at Wembley'), watch({ keywords: ['Mercury'], excludeKeywords: ['Freddie'] })).reason).toBe('no_keyword');
  });
});

describe('pipeline/mentions/match: languages', () => {
  const english = watch({ keywords: ['Acme'], languages: ['en-US'] });
  const sentences = {
    de: 'Acme ist abgestürzt, als ich die Datei gespeichert habe. Weiß jemand, wie man das behebt?',
    fr: "Quelqu'un sait comment exporter les données depuis Acme ? Je ne trouve pas le bouton.",
    es: '¿Alguien sabe si Acme funciona en Linux? Quiero instalarlo en mi ordenador del trabajo.',
    en: 'Acme crashed again when I saved the file, does anyone know how to fix this?',
  };

  it('detects German, French, Spanish and English sentences', () => {
    for (const [lang, text] of Object.entries(sentences)) expect(detectLanguage({ title: null, text })).toBe(lang);
  });

  it('keeps the watch\'s languages only, comparing primary subtags', () => {
    expect(matchPost(post(sentences.en), english)).toMatchObject({ keep: true, reason: 'matched', lang: 'en' });
    for (const lang of ['de', 'fr', 'es'] as const) expect(matchPost(post(sentences[lang]), english)).toMatchObject({ keep: false, reason: 'language', lang });
    const europe = watch({ keywords: ['Acme'], languages: ['de-AT', 'fr', 'ES'] });
    expect(['de', 'fr', 'es', 'en'].map((lang) => matchPost(post(sentences[lang as keyof typeof sentences]), europe).keep)).toEqual([true, true, true, false]);
  });

  it('trusts the language the platform declares over detection', () => {
    expect(matchPost(post(sentences.de, { lang: 'en-GB' }), english)).toMatchObject({ keep: true, lang: 'en' });
    expect(matchPost(post(sentences.en, { lang: 'fr-CA' }), english)).toMatchObject({ keep: false, reason: 'language', lang: 'fr' });
    expect(matchPost(post(sentences.en, { lang: 'und' }), english)).toMatchObject({ keep: true, lang: 'en' }); // undetermined: detected
    expect(primaryLanguage('iw-IL')).toBe('he');
    expect(primaryLanguage('nb_NO')).toBe('no');
  });

  it('keeps texts too short (or too unsure) to identify, with lang null', () => {
    for (const text of ['Acme rocks', 'Acme 👍👍', 'Acme est top', 'Acme team is amazing']) {
      expect(matchPost(post(text), english)).toMatchObject({ keep: true, reason: 'matched', lang: null });
    }
    expect(detectLanguage({ title: null, text: 'Acme rocks!!!' })).toBeNull();
  });

  it('does not detect when the watch has no language filter', () => {
    const any = watch({ keywords: ['Acme'] });
    expect(matchPost(post(sentences.de), any)).toMatchObject({ keep: true, lang: null });
    expect(matchPost(post(sentences.de, { lang: 'de-DE' }), any)).toMatchObject({ keep: true, lang: 'de' });
    expect(matchPost(post(sentences.de), watch({ keywords: ['Acme'], languages: [] })).keep).toBe(true);
  });
});

describe('pipeline/mentions/match: the context rule', () => {
  const mercury = watch({ keywords: ['Mercury'], competitors: ['Brex', 'Ramp'], context: 'Mercury is a bank for startups: business checking, treasury, cards' });

  it('keeps the bank and drops the namesakes', () => {
    const kept = matchPost(post("switched our startup's banking to Mercury"), mercury);
    expect(kept).toMatchObject({ keep: true, reason: 'matched' });
    expect(kept.contextScore).toBeCloseTo(2 / 6, 3); // startup and bank of bank, startup, business, checking, treasury, card
    expect(matchPost(post('Mercury retrograde is ruining my week'), mercury)).toMatchObject({ keep: false, reason: 'context', contextScore: 0 });
    expect(matchPost(post('Freddie Mercury live at Wembley'), mercury)).toMatchObject({ keep: false, reason: 'context', contextScore: 0 });
    expect(matchPost(post('The planet Mercury is closest to the sun'), mercury).keep).toBe(false);
    expect(matchPost(post('Mercury debit cards finally work with Apple Pay'), mercury).keep).toBe(true);
  });

  it('keeps a post naming a competitor, one using a distinctive keyword, one talking product', () => {
    expect(matchPost(post('Mercury or Brex for a seed round?'), mercury)).toMatchObject({ keep: true, matchedCompetitors: ['Brex'], contextScore: 0 });
    const withHandle = { ...mercury, keywords: ['Mercury', '@mercury'] };
    expect(matchPost(post('@mercury thanks for the quick fix'), withHandle)).toMatchObject({ keep: true, matchedKeywords: ['Mercury', '@mercury'] });
    expect(matchPost(post('The Mercury app logged me out again'), mercury).keep).toBe(true);
    expect(matchPost(post('Mercury pricing changed?'), mercury).keep).toBe(true);
  });

  it('reads the text near the keyword, not the whole of a long post', () => {
    const far = `Mercury retrograde is back. ${'Nothing about money here at all. '.repeat(30)}Anyway my startup's bank is fine.`;
    expect(matchPost(post(far), mercury)).toMatchObject({ keep: false, reason: 'context' });
    const near = `${'A long day of chores and errands. '.repeat(30)}Opened a business account at Mercury today.`;
    expect(matchPost(post(near), mercury)).toMatchObject({ keep: true });
  });

  it('tells an app from its namesakes with other contexts', () => {
    const notion = watch({ keywords: ['Notion'], context: 'Notion is a workspace app for notes, docs, wikis and project management' });
    expect(matchPost(post('Our whole wiki lives in Notion now'), notion).keep).toBe(true);
    expect(matchPost(post('I have no notion of what he meant'), notion).keep).toBe(false);
    const rust = watch({ keywords: ['Rust'], context: 'Rust is a programming language: compiler, crates, cargo, memory safety' });
    expect(matchPost(post('Rewriting our compiler passes in Rust'), rust).keep).toBe(true);
    expect(matchPost(post('rust on the car door needs sanding'), rust).keep).toBe(false);
    expect(matchPost(post('GitHub Copilot broke my flow'), watch({ keywords: ['GitHub'], context: 'A code hosting site' })).keep).toBe(true);
  });

  it('has no context rule without a context, or with one of stop words and keywords only', () => {
    expect(matchPost(post('Freddie Mercury live at Wembley'), watch({ keywords: ['Mercury'] }))).toMatchObject({ keep: true, contextScore: null });
    expect(matchPost(post('Freddie Mercury live at Wembley'), watch({ keywords: ['Mercury'], context: 'It is Mercury' }))).toMatchObject({ keep: true, contextScore: null });
  });
});

describe('pipeline/mentions/match: many posts', () => {
  it('matches 10,000 posts against a 20-keyword watch compiled once', () => {
    const keywords = Array.from({ length: 19 }, (_, i) => `brand${String.fromCharCode(97 + i)}`).concat(['Acme Cloud']);
    const compiled = compileWatch(watch({ keywords, excludeKeywords: ['spam', 'giveaway'], competitors: ['Globex'], context: 'Acme Cloud hosts web apps and databases' }));
    const filler = 'a long line of words about nothing in particular, repeated so the post has some length to scan. ';
    const texts = ['We host our databases on Acme Cloud now', 'acme cloud giveaway click here', 'brandh is', filler.repeat(5), `${filler.repeat(3)}brandm vs Globex`];
    let kept = 0;
    let excluded = 0;
    let none = 0;
    for (let i = 0; i < 10_000; i++) {
      const result = matchPost(post(texts[i % texts.length] as string), compiled);
      if (result.keep) kept++;
      else if (result.reason === 'excluded') excluded++;
      else if (result.reason === 'no_keyword') none++;
    }
    expect({ kept, excluded, none }).toEqual({ kept: 4000, excluded: 2000, none: 2000 }); // "brandh is" says nothing of hosting: dropped by context
  });
});
