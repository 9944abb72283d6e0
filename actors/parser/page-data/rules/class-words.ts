/**
 * What the page rules read in an element's class and id (view.ts): the hint words they look
 * up, and the furniture words that put an element and what it holds in a page's furniture.
 *
 * Furniture, inherited down the tree (a bit set, `Ctx`):
 *   footer   `<footer>` outside an article, role=contentinfo, class/id words footer,
 *            colophon, copyright, site-info;
 *   nav      `<nav>`, role=navigation/menu/menubar, class/id words nav, navbar, menu,
 *            breadcrumb(s);
 *   aside    `<aside>` outside an article, role=complementary, class/id words sidebar,
 *            widget(-area);
 *   header   `<header>` outside an article, role=banner, class/id words masthead,
 *            site-header, topbar;
 *   comments class/id words comment(s), comment-list, respond, disqus, reviews-list;
 *   related  class/id words related, recommended, more-stories, read-more,
 *            popular, trending, carousel, upsell, cross-sell;
 *   article  inside `<article>`;  main  inside `<main>` or role=main;  also inside a
 *   `<table>`, an `<li>`, a `<figure>` (so no rule walks up the tree to ask).
 */

export const Ctx = {
  Footer: 1,
  Nav: 2,
  Aside: 4,
  Header: 8,
  Comments: 16,
  Related: 32,
  Article: 64,
  Main: 128,
  NoScript: 256,
  Table: 512,
  ListItem: 1024,
  Figure: 2048,
} as const;

/** Furniture a reader skips when looking for the page's own facts. */
export const FURNITURE = Ctx.Footer | Ctx.Nav | Ctx.Aside | Ctx.Header | Ctx.Comments | Ctx.Related;

/**
 * Words are matched in the class and id as written, ignoring case, not in a lower-cased
 * copy (no string per element): the same matches, as a `k` of a word also matches the
 * Kelvin sign, which lower-cases to `k` (and no word ends in `i`, which `İ` lower-cases to
 * with a combining dot after it).
 */
const anyCase = (words: string): string => words.replace(/k/g, '[k\u212a]');

/** Substrings of class/id the rules look up (`byHint`). */
export const HINT_WORDS = [
  'author', 'byline', 'date', 'time', 'publish', 'posted', 'updated', 'modified', 'price', 'stock', 'availab',
  'rating', 'stars', 'review', 'address', 'adresse', 'contact', 'cart', 'basket', 'buy', 'lead', 'intro', 'standfirst',
  'summary', 'excerpt', 'teaser', 'subtitle', 'subhead', 'dek', 'deck', 'title', 'headline', 'meta', 'info',
] as const;
export type HintWord = (typeof HINT_WORDS)[number];
/**
 * Every hint word where it occurs: no word is the start of another, so each match is one
 * word, and searching again from the character after a match's start finds the words that
 * overlap it ("updated" holds "date"). Most hints hold none: one search says so.
 */
export const HINT_WORD_AT = new RegExp(HINT_WORDS.map(anyCase).join('|'), 'gi');

const FURNITURE_WORDS = {
  footer: 'footer|site-?footer|colophon|copyright|site-?info|page-?footer|global-?footer',
  nav: 'nav|navbar|navigation|menu|main-?menu|breadcrumbs?|skip-?links?',
  aside: 'sidebar|side-?bar|widget-?area|rail|right-?rail',
  header: 'masthead|site-?header|topbar|top-?bar|global-?header|page-?header-?nav',
  comments: 'comments?|comment-?list|commentlist|respond|disqus|reviews-?list|user-?reviews',
  related:
    'related|related-?(?:posts|articles|stories|products|content)|recommend(?:ed|ations)?|more-?(?:stories|articles|news)|read-?more|popular|trending|carousel|upsells?|cross-?sells?|also-?bought|outbrain|taboola',
} as const;
/** The bit of each `FURNITURE_WORDS` group, in its order (group n of `FURNITURE_AT` is the n-th). */
const FURNITURE_BITS = [Ctx.Footer, Ctx.Nav, Ctx.Aside, Ctx.Header, Ctx.Comments, Ctx.Related];
/**
 * Every furniture word of a hint, a word being bounded by the hint's ends, spaces, `_` or
 * `-`; the group that matched names the kind. No word of one kind is another kind's word
 * cut at a `-`, so one kind matches where a word starts, and searching again from the
 * character after a match's start finds the others. Most hints hold none: one search says so.
 */
const FURNITURE_AT = new RegExp(
  `(?:^|[\\s_-])(?:${Object.values(FURNITURE_WORDS).map((words) => `(${anyCase(words)})`).join('|')})(?=$|[\\s_-])`,
  'gi',
);
/** `FURNITURE_AT` without its groups: a quicker no for the three hints in four that name no furniture. */
const ANY_FURNITURE = new RegExp(`(?:^|[\\s_-])(?:${anyCase(Object.values(FURNITURE_WORDS).join('|'))})(?=$|[\\s_-])`, 'i');

/** The hint of an element: lower-cased `class` and `id`, space-joined and trimmed (`Node.hint`). */
export function hintOf(cls: string | undefined, id: string | undefined): string {
  if (!cls && !id) return '';
  if (id !== undefined || cls === undefined) return `${cls ?? ''} ${id ?? ''}`.toLowerCase().trim();
  return cls.toLowerCase().trim();
}

/** The furniture a class or id names. */
export function furnitureOf(hint: string | undefined): number {
  if (!hint || !ANY_FURNITURE.test(hint)) return 0;
  let c = 0;
  FURNITURE_AT.lastIndex = 0;
  for (let m = FURNITURE_AT.exec(hint); m; m = FURNITURE_AT.exec(hint)) {
    for (let group = 1; group <= FURNITURE_BITS.length; group += 1) if (m[group] !== undefined) c |= FURNITURE_BITS[group - 1] as number;
    FURNITURE_AT.lastIndex = m.index + 1;
  }
  return c;
}
