/**
 * `author`: the names of a byline near the headline (near.ts: up to 800 characters before
 * it, 2,500 after; never in footer, nav, sidebar, comments or related boxes).
 *
 * Where, in order (the first source that yields a name wins; within it the nearest element,
 * plus the other elements of the same source, tag and class within 300 characters of it —
 * co-authors linked one by one):
 *   1. links with `rel="author"`;
 *   2. elements whose class/id says author or byline (an author box's long text gives way
 *      to its first link, when it has one);
 *   3. short text (at most 200 characters) whose own text starts with a byline word: By, Von, Par, Por,
 *      Door, Di, Da, Written by, Posted by, Text:, Autor:, Author:, Auteur :, Autore:;
 *   4. then 1 and 3 anywhere in the content region (content.ts) outside furniture, in
 *      document order: a byline at the article's end.
 * Names are cleaned (`namesIn`), words in separate elements kept apart: the byline word
 * dropped; the text cut at a digit, `|`, `•`, `·`, `—`, `(`, or " on/am/le/el/il/op/at/
 * from/for/via/last/updated …" (a month name left before a cut date dropped too); split
 * into several authors on "and", "&", ",", ";", "und", "et", "y", "e", "en"; each name 2–80
 * characters, 1–6 words each starting with a capital (or a particle: von, van, de, da, …,
 * or a script without case), no digits, `@` or URL, not a month, not a role ("Staff
 * writer", "Redakteur"), a credit ("Photograph by …") or a site word ("admin", "Share",
 * "Follow", "View all posts").
 */
import { type Anchor, inFurniture, nearest, offset } from './near.js';
import { findFirst } from '../../formats/walk.js';
import { monthOf } from './date-text.js';
import { headsOf, ownTextHead, ownTextOf, spacedTextOf, textOf } from './text.js';
import { type Node, type PageView, Ctx, MAX_CANDIDATES, hinted, inside, tagged } from './view.js';

const BEFORE = 800;
const AFTER = 2500;
const MAX_AUTHORS = 10;

/** Byline words that open a byline, longest first; matched at the start, followed by a space or `:`. */
const PREFIXES = [
  'written by', 'posted by', 'story by', 'words by', 'text by', 'reported by', 'published by', 'geschrieben von',
  'ein beitrag von', 'ein artikel von', 'veröffentlicht von', 'écrit par', 'publié par', 'escrito por', 'publicado por',
  'scritto da', 'geschreven door', 'autor/in', 'autor/-in', 'autorin', 'autoren', 'autor', 'authors', 'author', 'auteur',
  'autore', 'escribe', 'text', 'texto', 'by',
  'von', 'par', 'por', 'door', 'di', 'da',
];
/** The byline words by their first two letters (all have two or more), in `PREFIXES` order: a text is compared with the few sharing its start. */
const PREFIXES_BY_HEAD = new Map<string, string[]>();
for (const p of PREFIXES) {
  const head = p.slice(0, 2);
  PREFIXES_BY_HEAD.set(head, [...(PREFIXES_BY_HEAD.get(head) ?? []), p]);
}
/** The same starts as `ownTextHead` numbers: an element's own text starting otherwise is not read. */
const PREFIX_HEADS = headsOf(PREFIXES);
/** Characters of a text lower-cased to compare with the byline words: the longest word and what must follow it. */
const PREFIX_SPAN = Math.max(...PREFIXES.map((p) => p.length)) + 2;
/** Byline words that are common words too: only with a colon ("Text: Jane Doe"). */
const COLON_ONLY = new Set(['text', 'texto']);
/** Where a name ends: the first of these in the cleaned text. */
const STOP = /\s[|•·—–]\s|[|•·—(\d]|\s(?:on|am|le|el|il|op|at|in|im|from|for|für|via|last|zuletzt|updated|published|posted|veröffentlicht|aktualisiert|publié|mis|publicado|actualizado)\s/i;
/** Lower-case words a name may hold: nobiliary and family particles. */
const PARTICLES = new Set(['von', 'van', 'der', 'den', 'de', 'du', 'da', 'di', 'del', 'della', 'des', 'la', 'le', 'ten', 'ter', 'zu', 'y', 'e', 'bin', 'al', 'el', 'dos', 'das', 'do', 'af', 'av']);
const SPLIT = /\s(?:and|und|et|y|e|en)\s|\s?[,;&]\s?|\s\/\s/i;
const NOT_NAME = /^(?:published|posted|publicado|publié|veröffentlicht|pubblicato|źródło|source|quelle|fuente|admin|administrator|root|webmaster|user|unknown|anonymous|guest|editor|editors|staff|redaktion|team|share|follow|more|email|e-mail|contact|comments?|view|profile|posts?|articles?|about|read|see|home|print)$/i;
const NOT_NAME_WORD = /\b(?:photos?|photograph|photography|fotos?|images?|bild|bilder|credits?|illustration|video|share|follow|view|posts?|articles?|profile|email|twitter|facebook|instagram|linkedin|contact|comments?|subscribe|reporter|editor|correspondent|writer|journalist|contributor|columnist|photographer|redakteur|redakteurin|korrespondent|korrespondentin|journaliste|rédacteur|rédactrice|periodista|redactor|redactora|giornalista|verslaggever|minutes?|min|read|lesezeit)\b/i;
const LINK_OR_MAIL = /@|https?:|www\./i;

function dropPrefix(text: string): { rest: string; had: boolean } {
  const lower = text.slice(0, PREFIX_SPAN).toLowerCase();
  for (const p of PREFIXES_BY_HEAD.get(lower.slice(0, 2)) ?? []) {
    if (!lower.startsWith(p)) continue;
    const next = lower.charAt(p.length);
    const colon = next === ':' || lower.startsWith(' :', p.length);
    if (COLON_ONLY.has(p) ? !colon : next !== '' && next !== ' ' && next !== ':' && next !== '\u00a0') continue;
    return { rest: text.slice(p.length).replace(/^[\s:]{1,5}/, ''), had: true };
  }
  return { rest: text, had: false };
}

/** Does a word start as a name does: a capital, a particle, or a script without case? */
function nameWord(word: string): boolean {
  const first = word.charAt(0);
  if (first.toUpperCase() !== first.toLowerCase()) return first === first.toUpperCase() || PARTICLES.has(word);
  return true;
}

/** Trailing punctuation off, but the dot of a short last word kept ("Perry Bacon Jr.", "Nicolas Gutierrez C."). */
function trimName(text: string): string {
  const name = text.replace(/^[\s,.:;/–-]{1,5}/, '').replace(/[\s,:;/–-]{1,5}$/, '');
  if (!name.endsWith('.')) return name;
  const last = name.slice(name.lastIndexOf(' ') + 1, -1);
  return last.length <= 3 ? name : name.slice(0, -1);
}

function cleanName(part: string): string | null {
  const name = trimName(dropPrefix(part.trim()).rest).trim();
  if (name.length < 2 || name.length > 80 || LINK_OR_MAIL.test(name)) return null;
  const words = name.split(' ');
  if (words.length > 6 || NOT_NAME.test(name) || NOT_NAME_WORD.test(name) || !words.every(nameWord)) return null;
  if (words.length === 1 && monthOf(name)) return null;
  return name;
}

/** Month names left at the end when a date was cut off ("Poppy Reid Feb" of "Poppy Reid Feb 12, 2020"). */
function dropTrailingMonths(head: string): string {
  const words = head.trimEnd().split(' ');
  while (words.length > 1 && monthOf(words[words.length - 1] ?? '')) words.pop();
  return words.join(' ');
}

/** A byline word after one to three leading words ("Artikel von …", "Ein Gastbeitrag von …"). */
const INNER_BYLINE = /^(?:\S{1,20}\s){1,3}(?:von|by|par|por|door|di)\s/i;

/** The author names in a byline's text (see the file comment). */
export function namesIn(text: string): string[] {
  const line = text.replace(/\s+/g, ' ').trim().slice(0, 300);
  const prefixed = dropPrefix(line);
  const inner = prefixed.had ? null : INNER_BYLINE.exec(line);
  const rest = inner ? line.slice(inner[0].length) : prefixed.rest;
  const stop = STOP.exec(rest);
  let head = stop ? rest.slice(0, stop.index) : rest;
  if (stop && /^\s?\d/.test(rest.slice(stop.index))) head = dropTrailingMonths(head);
  const out: string[] = [];
  for (const part of head.split(SPLIT)) {
    const name = cleanName(part);
    if (name && !out.includes(name)) out.push(name);
  }
  return out.slice(0, MAX_AUTHORS);
}

/** The names one element gives: its text, or for a long author box its first link's text. */
function namesOf(node: Node): string[] {
  const text = spacedTextOf(node.el, 400);
  if (text.length <= 150) return namesIn(text);
  const link = findFirst(node.el, (a) => a.name === 'a' && textOf(a, 200).length <= 80);
  return link ? namesIn(spacedTextOf(link, 200)) : [];
}

/**
 * Elements whose own text opens with a byline word (a lone "By" label stands for its
 * parent), at most 200 characters long. Only the texts whose first two letters start a
 * byline word are read whole.
 */
function bylineTexts(view: PageView): Node[] {
  const out = new Set<Node>();
  for (const n of view.all) {
    if (!n.hasText || !PREFIX_HEADS.has(ownTextHead(n))) continue;
    const { rest, had } = dropPrefix(ownTextOf(n));
    if (!had) continue;
    const parent = rest ? n : n.parent;
    if (parent && textOf(parent.el, 260).length <= 200) out.add(parent);
  }
  return [...out];
}

const REL_AUTHOR = /(?:^|\s)author(?:\s|$)/i;
const authorLinks = (view: PageView): Node[] =>
  tagged(view, 'a').filter((n) => n.el.attribs.rel !== undefined && REL_AUTHOR.test(n.el.attribs.rel));
const authorHints = (view: PageView): Set<Node> => new Set([...hinted(view, 'author'), ...hinted(view, 'byline')]);

/** Nodes of `nodes` inside `region` outside furniture, in document order: a byline at an article's end. */
function inRegion(nodes: Iterable<Node>, region: Node, anchor: Anchor): Node[] {
  return [...nodes].filter((n) => !inFurniture(n, anchor) && !(n.ctx & Ctx.NoScript) && inside(n, region)).slice(0, MAX_CANDIDATES);
}

export function readAuthors(view: PageView, anchor: Anchor, region: Node | null): string[] {
  // The link and byline sources serve a near and a region pass: each read once, when first asked.
  let linked: Node[] | undefined;
  let bylined: Node[] | undefined;
  const links = (): Node[] => (linked ??= authorLinks(view));
  const bylines = (): Node[] => (bylined ??= bylineTexts(view));
  const passes: Array<() => Node[]> = [
    () => nearest(links(), anchor, BEFORE, AFTER),
    () => nearest(authorHints(view), anchor, BEFORE, AFTER),
    () => nearest(bylines(), anchor, BEFORE, AFTER),
  ];
  if (region) passes.push(() => inRegion(links(), region, anchor), () => inRegion(bylines(), region, anchor));
  const read = new Map<Node, string[]>();
  const namesAt = (n: Node): string[] => {
    let names = read.get(n);
    if (!names) read.set(n, (names = namesOf(n)));
    return names;
  };
  for (const pass of passes) {
    const candidates = pass();
    const first = candidates.find((n) => namesAt(n).length);
    if (!first) continue;
    const names: string[] = [];
    const base = offset(first, anchor);
    for (const n of candidates) {
      if (n !== first && (Math.abs(offset(n, anchor) - base) > 300 || n.tag !== first.tag || n.hint !== first.hint)) continue;
      for (const name of namesAt(n)) if (!names.includes(name)) names.push(name);
    }
    return names.slice(0, MAX_AUTHORS);
  }
  return [];
}
