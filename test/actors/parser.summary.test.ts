/**
 * The extractive summary (actors/parser/page-data/summary.ts): markdown reduced to prose,
 * sentences split by Intl.Segmenter in English, German and Japanese, the central ones chosen
 * and returned in the page's order within the limits, the same answer every time.
 */
import { describe, expect, it } from 'vitest';
import { extractiveSummary, inlineText, proseParagraphs } from '../../actors/parser/page-data/summary.js';

const ENGLISH = `# Harbour plan approved

![The harbour](https://example.com/harbour.jpg)

The city council approved the new [harbour plan](https://example.com/plan) on Tuesday after years of debate.
The harbour plan sets aside money for flood walls, a ferry terminal and a new harbour promenade.

Some residents said the weather was unusually warm for March.

- Flood walls: 2025
- Ferry terminal: 2026

| Part | Cost |
|------|------|
| Walls | 10 |

\`\`\`
const harbour = plan.approve();
\`\`\`

Engineers expect work on the harbour walls and the ferry terminal to start next spring.
A local bakery won a prize for its bread.
The council will review the harbour plan's costs every year, **starting in 2025**.`;

const positions = (summary: string, source: string): number[] =>
  summary.split(/(?<=[.!?])\s/).map((s) => source.indexOf(s.slice(0, 20)));

describe('actors/parser/page-data/summary', () => {
  it('picks the central English sentences, in the page order, without markdown syntax', () => {
    const result = extractiveSummary(ENGLISH, { language: 'en', maxSentences: 2 });
    expect(result.sentences).toBe(2);
    expect(result.language).toBe('en');
    expect(result.summary).not.toMatch(/[[\]#*`|]|https?:|!\[/);
    expect(result.summary).not.toContain('weather');
    expect(result.summary).not.toContain('bakery');
    expect(result.summary).toContain('harbour');
    const at = positions(result.summary, inlineText(ENGLISH));
    expect(at.every((p) => p >= 0)).toBe(true);
    expect([...at].sort((a, b) => a - b)).toEqual(at);
  });

  it('is deterministic and stays within maxChars', () => {
    const a = extractiveSummary(ENGLISH, { language: 'en', maxSentences: 3, maxChars: 200 });
    const b = extractiveSummary(ENGLISH, { language: 'en', maxSentences: 3, maxChars: 200 });
    expect(a).toEqual(b);
    expect(a.summary.length).toBeLessThanOrEqual(200);
    expect(a.sentences).toBeGreaterThan(0);
  });

  it('summarizes German with German stop words', () => {
    const german = [
      'Der Stadtrat hat am Dienstag den neuen Hafenplan nach jahrelanger Debatte beschlossen.',
      'Das Wetter war für März ungewöhnlich warm.',
      'Der Hafenplan sieht Geld für Flutmauern, ein Fährterminal und eine Promenade am Hafen vor.',
      'Eine Bäckerei aus der Altstadt gewann einen Preis.',
      'Die Arbeiten an den Flutmauern und am Fährterminal des Hafens beginnen im nächsten Frühjahr.',
      'Der Stadtrat will die Kosten des Hafenplans jedes Jahr prüfen.',
    ].join(' ');
    const result = extractiveSummary(german, { language: 'de-DE', maxSentences: 2 });
    expect(result.language).toBe('de-DE');
    expect(result.sentences).toBe(2);
    expect(result.summary).not.toMatch(/Wetter|Bäckerei/);
    expect(result.summary).toMatch(/Hafen/);
  });

  it('splits Japanese sentences with the segmenter and keeps their order', () => {
    const japanese =
      '東京は日本の首都です。東京の人口は約千四百万人で、東京は世界有数の大都市です。昨日は雨が降りました。浅草寺は東京で最も古い寺です。東京タワーと東京スカイツリーは東京の人気の観光地です。';
    const result = extractiveSummary(japanese, { language: 'ja', maxSentences: 2, maxChars: 80 });
    expect(result.sentences).toBe(2);
    expect(result.summary.length).toBeLessThanOrEqual(80);
    const parts = result.summary.split(' ');
    expect(parts).toHaveLength(2);
    for (const part of parts) expect(part.endsWith('。')).toBe(true);
    expect(japanese.indexOf(parts[0] as string)).toBeLessThan(japanese.indexOf(parts[1] as string));
    expect(result.summary).not.toContain('雨');
  });

  it('returns a short text as it is, an empty one as empty', () => {
    expect(extractiveSummary('Just one sentence here.')).toEqual({ summary: 'Just one sentence here.', sentences: 1, language: null });
    expect(extractiveSummary('')).toEqual({ summary: '', sentences: 0, language: null });
    expect(extractiveSummary('# Only a heading\n\n- and a list')).toEqual({ summary: '', sentences: 0, language: null });
  });

  it('cuts the best sentence at a word boundary when no sentence fits maxChars', () => {
    const long = Array.from({ length: 4 }, (_, i) => `Sentence ${i} talks at length about the harbour plan and its many parts and costs and the long debate.`).join(' ');
    const result = extractiveSummary(long, { maxChars: 40 });
    expect(result.summary.length).toBeLessThanOrEqual(40);
    expect(result.summary.endsWith('…')).toBe(true);
    expect(result.sentences).toBe(1);
  });

  it('strips markdown syntax: links to text, images, emphasis, code, HTML, escapes', () => {
    expect(inlineText('See [the plan](https://x.example/p "Plan") and ![logo](l.png) **now** or _later_, `code`, <b>bold</b>, 2\\*3, snake_case_name.'))
      .toBe('See the plan and now or later, code, bold , 2*3, snake_case_name.');
    expect(proseParagraphs('## Heading\nSetext heading\n===\n\n> Quoted text\n> goes on.\n\n1. item\n\n    indented code\n\nText [ref][1].\n\n[1]: https://x.example'))
      .toEqual(['Quoted text goes on.', 'Text ref.']);
  });

  it('stays linear on hostile markdown (200 KB of brackets, stars and underscores)', () => {
    const hostile = `${'[!['.repeat(30_000)} ${'*a'.repeat(30_000)} ${'_'.repeat(50_000)} end of text here.`;
    const result = extractiveSummary(`${hostile}\n\nA real sentence with enough words in it. Another one follows here.`);
    expect(result.summary).toContain('A real sentence with enough words in it.');
  });

  it('reads an autolink to its first < at most: 1.8 MB of unclosed <http: (each read up to 2,000 characters ahead before)', () => {
    const unclosed = '<http:'.repeat(300_000);
    expect(inlineText(`a ${unclosed} b <https://x.example/z> c <mailto:me@x.example> d`)).toBe(`a ${unclosed} b c d`);
    expect(inlineText('a <ftp://x.example/ok> b')).toBe('a b');
  });
});
