/**
 * Short furniture lines inside the chosen root: datelines, bylines, update stamps, photo
 * credits, "read also" teasers and tags lines (a label and its links), headline links in
 * capitals, a caption's controls, sign-up prompts, a story's credits, and how to reach its
 * writer after its last paragraph.
 */
import { type Element, type TextStats, childElements, contains, descendants, detach, measure, tagOf } from './dom.js';
import {
  CONTACT_ADDRESS, CONTACT_OPENING, CONTROL_LINE, CREDIT_LINE, DATE_LINE, HEADING_TAGS, META_LABEL, META_LINE, NEWSLETTER_PROMPT, PHOTO_AGENCY, READ_ALSO_PREFIX,
  SOCIAL_NETWORK,
} from './patterns.js';
import { proseOf } from './select.js';
import { textOf } from './text.js';

const LINE_TAGS = new Set(['p', 'div', 'span', 'li', 'time', 'small', 'address', 'h2', 'h3', 'h4', 'h5', 'h6', 'figcaption', 'dd', 'dt']);

/** A line up to this long may be furniture; a "read also" block of several headlines up to MAX_TEASER, when they are most of it. */
const MAX_LINE = 160;
const MAX_TEASER = 400;
const LOWER = /\p{Ll}/gu;
const UPPER = /\p{Lu}/gu;

/** A story's credit or contact line is at most this long. */
const MAX_CREDIT = 300;

/**
 * "Email Tariq Malik at tmalik@space.com", "Follow Newsbeat on Instagram, Facebook, Twitter": a
 * contact opening with an address or two networks (removed only after the story's last paragraph).
 */
function isContactLine(text: string): boolean {
  return CONTACT_OPENING.test(text) && (CONTACT_ADDRESS.test(text) || (text.match(SOCIAL_NETWORK)?.length ?? 0) >= 2);
}

/**
 * A line that is one link written in capitals ("SEAN SPICER ELIMINATED FROM 'DANCING WITH THE
 * STARS'", "CLICK HERE TO GET THE APP"): a news site's teaser for another page, not a sentence.
 */
function isShoutedLink(text: string, s: TextStats): boolean {
  if (s.link < 0.9 * s.text) return false;
  const upper = text.match(UPPER)?.length ?? 0;
  // A plural or a brand may keep a small letter ("AMAs", "iPHONE").
  return upper >= 12 && (text.match(LOWER)?.length ?? 0) <= 0.1 * upper && text.split(' ').length >= 3;
}

/** A line of two or more meta labels with their colons (`META_LABEL`): a post's date, author, category and tags. */
const isLabelledMeta = (text: string): boolean => (text.match(META_LABEL)?.length ?? 0) >= 2;

/** A photo credit whose last part, after a `|` or `/`, is an agency: "Natalie Naccache | Bloomberg | Getty Images". */
function isAgencyCredit(text: string): boolean {
  const cut = Math.max(text.lastIndexOf('|'), text.lastIndexOf('/'));
  return cut > 0 && PHOTO_AGENCY.test(text.slice(cut + 1).trim());
}

/**
 * Removes short furniture lines under `root`: "read also" teasers (a label and a link),
 * datelines, bylines, update stamps, photo credits and sources, a story's credits and how to
 * reach its writer.
 */
export function removeMetaLines(root: Element): void {
  const stats = measure(root);
  const found: Element[] = [];
  const contacts: Element[] = [];
  const walk = (el: Element) => {
    for (const c of childElements(el)) {
      const s = stats.get(c);
      if (!s || s.text > MAX_TEASER || !LINE_TAGS.has(tagOf(c))) {
        walk(c);
        continue;
      }
      const text = textOf(c);
      const readAlso = READ_ALSO_PREFIX.test(text) && s.link >= (s.text > MAX_LINE ? 0.6 : 0.4) * s.text;
      const meta =
        (text.length <= 80 && (DATE_LINE.test(text) || META_LINE.test(text) || CONTROL_LINE.test(text) || isAgencyCredit(text) || (tagOf(c) === 'time' && text.length <= 40))) ||
        (s.text <= MAX_LINE && isLabelledMeta(text));
      const credit = s.text <= MAX_CREDIT && (CREDIT_LINE.test(text) || NEWSLETTER_PROMPT.test(text));
      if (readAlso || meta || credit || (s.text <= MAX_LINE && !HEADING_TAGS.has(tagOf(c)) && isShoutedLink(text, s))) found.push(c);
      else if (s.text <= MAX_CREDIT && isContactLine(text)) contacts.push(c);
      else walk(c);
    }
  };
  walk(root);
  for (const el of found) detach(el);
  for (const el of closing(root, contacts, stats)) detach(el);
}

/** A paragraph of this much prose is the story's; a contact line after the last one closes it. */
const STORY_PARAGRAPH = 150;

/** Those of `lines` that no paragraph of the story follows (in document order under `root`). */
function closing(root: Element, lines: readonly Element[], stats: Map<Element, TextStats>): Element[] {
  if (!lines.length) return [];
  const wanted = new Set(lines);
  const out: Element[] = [];
  for (const el of descendants(root)) {
    if (wanted.has(el)) out.push(el);
    else if (tagOf(el) === 'p' && proseOf(stats.get(el)) >= STORY_PARAGRAPH && !out.some((line) => contains(line, el))) out.length = 0;
  }
  return out;
}
