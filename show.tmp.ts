import { readHtml } from './bench/corpus.js';
import { wcxbPages, wordF1 } from './bench/main-content-scores.js';
import { extractMainContent, mainText } from './actors/parser/main-content/index.js';
import { loadHtml } from './actors/parser/formats/load-html.js';
const [split, ...ids] = process.argv.slice(2);
const norm = (s: string) => s.toLowerCase().replace(/\s+/g, ' ').trim();
for (const p of wcxbPages(split as 'dev')!.filter((p) => ids.includes(p.id))) {
  const text = mainText(extractMainContent(loadHtml(readHtml(p.path))));
  const s = wordF1(text, p.mainContent);
  console.log(`== ${p.id} ${p.url} f1 ${s.f1.toFixed(3)} p ${s.precision.toFixed(3)} r ${s.recall.toFixed(3)} ours ${text.length} gold ${p.mainContent.length}`);
  const gold = norm(p.mainContent);
  let n = 0, chars = 0;
  for (const line of text.split('\n')) { const l = line.trim(); if (!l || gold.includes(norm(l))) continue; chars += l.length; if (n++ < Number(process.env.N ?? 15)) console.log('  EXTRA:', l.slice(0, 150)); }
  console.log('  extra lines', n, 'chars', chars);
}
