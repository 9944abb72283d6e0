/**
 * A result's snippet: about SNIPPET_LENGTH (200) characters of the page's stored text around
 * the first occurrence of a query term, found with the index's own tokenizer (so `Café`
 * matches the query `cafe`), cut at spaces and marked with `…` where text was left out.
 * When no query term occurs in the stored text (the term is further into the page, or only in
 * the title), the snippet is the text's start; the description is used when the page has no
 * text.
 */
import { eachTerm } from './tokenize.js';

export const SNIPPET_LENGTH = 200;
/** How much of the snippet comes before the matched word. */
const LEAD = 60;

/** Offset of the first run of `text` holding one of `terms`; -1 when none does. */
function firstMatch(text: string, terms: ReadonlySet<string>): number {
  let found = -1;
  eachTerm(text, (term, start) => {
    if (terms.has(term)) found = start;
    return found !== -1;
  });
  return found;
}

/** How far a cut moves to reach a space. */
const REACH = 20;

/** The window [from, to) widened outwards to the nearest spaces, when one is within REACH. */
function atSpaces(text: string, from: number, to: number): [number, number] {
  const before = from > 0 ? text.lastIndexOf(' ', from - 1) : -1;
  const start = from > 0 && before !== -1 && from - before <= REACH ? before + 1 : from;
  const after = to < text.length ? text.indexOf(' ', to) : -1;
  const end = to >= text.length ? text.length : after !== -1 && after - to <= REACH ? after : to;
  return [start, end];
}

export function snippetOf(text: string, description: string, terms: ReadonlySet<string>, length = SNIPPET_LENGTH): string {
  const source = text.trim() ? text : description;
  if (source.length <= length) return source.trim();
  const match = firstMatch(source, terms);
  const from = match === -1 ? 0 : Math.max(0, Math.min(match - LEAD, source.length - length));
  const [start, end] = atSpaces(source, from, from + length);
  const body = source.slice(start, end).trim();
  return `${start > 0 ? '… ' : ''}${body}${end < source.length ? ' …' : ''}`;
}
