/**
 * What a domain report reads in a page (today's website, an archived snapshot): whether it
 * is a parked page or offers the domain for sale, whether it shows spam, and the words that
 * identify whose site it is, to tell when the content changed owner between two snapshots.
 * Pure and linear: the text is cut to MAX_SIGNAL_CHARS, lower-cased and matched with
 * `includes` and set lookups, never a regular expression over the page.
 *
 * The phrase and term lists are the report's documented rules (docs/api/intelligence.md);
 * each list names what it matches.
 */

/** Characters of a page's text read for signals (title and markdown together). */
export const MAX_SIGNAL_CHARS = 100_000;

/** Phrases of pages that offer the domain itself for sale (marketplaces' landers included). */
export const FOR_SALE_PHRASES = [
  'domain is for sale',
  'domain may be for sale',
  'domain name is for sale',
  'domain for sale',
  'buy this domain',
  'purchase this domain',
  'make an offer on this domain',
  'inquire about this domain',
  'this domain is available for purchase',
  'get this domain',
  'hugedomains.com',
  'afternic.com',
  'dan.com',
  'sedo.com',
] as const;

/** Phrases of parked pages: ads on a domain nobody uses, or a registrar's placeholder. */
export const PARKED_PHRASES = [
  'domain parking',
  'parked domain',
  'this domain is parked',
  'parked free',
  'this web page is parked',
  'related searches',
  'sponsored listings',
  'this domain has been registered',
  'this domain was recently registered',
  'future home of',
  'parkingcrew',
  'sedoparking',
  'bodis.com',
] as const;

/**
 * Terms of gambling, pharmacy, adult and counterfeit spam. A page shows spam when it holds
 * SPAM_TERMS_NEEDED distinct ones (one in its title counts twice): a single word is too
 * often innocent.
 */
export const SPAM_TERMS: ReadonlySet<string> = new Set([
  'viagra', 'cialis', 'levitra', 'kamagra', 'tramadol', 'xanax', 'valium', 'phentermine',
  'casino', 'casinos', 'poker', 'roulette', 'blackjack', 'sportsbook', 'betting', 'jackpot', 'slot', 'slots', 'judi', 'togel', 'sbobet', 'bandarq', 'gacor',
  'porn', 'porno', 'xxx', 'escort', 'escorts', 'camgirls', 'hentai',
  'replica', 'replicas', 'counterfeit', 'payday', 'bitcoin-doubler',
]);
export const SPAM_TERMS_NEEDED = 3;

/** Name servers of parking services (a suffix of the server's name). */
export const PARKING_NAMESERVERS = [
  'sedoparking.com',
  'parkingcrew.net',
  'bodis.com',
  'above.com',
  'parklogic.com',
  'dan.com',
  'afternic.com',
  'hugedomains.com',
  'domainparkingserver.net',
  'undeveloped.com',
  'ztomy.com',
] as const;

/** Words too common to say whose site a page is. */
const STOPWORDS: ReadonlySet<string> = new Set([
  'the', 'and', 'for', 'with', 'from', 'your', 'our', 'you', 'are', 'this', 'that', 'home', 'page', 'welcome', 'official', 'site', 'website', 'web',
  'com', 'net', 'org', 'www', 'http', 'https', 'inc', 'ltd', 'llc', 'gmbh', 'all', 'about', 'contact', 'more', 'new', 'news', 'blog', 'log', 'login',
  'sign', 'menu', 'search', 'privacy', 'policy', 'terms', 'cookies', 'cookie', 'copyright', 'rights', 'reserved', 'have', 'has', 'was', 'will', 'can',
  'not', 'but', 'who', 'what', 'when', 'how', 'why', 'its', 'his', 'her', 'they', 'them', 'their', 'there', 'here', 'into', 'out', 'one', 'also',
]);

export interface PageSignals {
  /** The parked-page phrases found. */
  readonly parked: readonly string[];
  /** The for-sale phrases found. */
  readonly forSale: readonly string[];
  /** The distinct spam terms found, when there are enough to call the page spam; else empty. */
  readonly spam: readonly string[];
}

export interface PageText {
  readonly title: string | null;
  readonly markdown: string;
}

/** One character that is a letter or a digit of any script (tested one character at a time). */
const LETTER = /[\p{L}\p{N}]/u;

/** Lower-case words of letters and digits (`-` kept inside a word), in order. */
export function wordsOf(text: string): string[] {
  const words: string[] = [];
  let start = -1;
  const lower = text.toLowerCase();
  for (let i = 0; i <= lower.length; i++) {
    const c = i < lower.length ? lower.charCodeAt(i) : 0x20;
    const wordChar = (c >= 0x61 && c <= 0x7a) || (c >= 0x30 && c <= 0x39) || c === 0x2d || (c > 0x7f && LETTER.test(lower.charAt(i)));
    if (wordChar && start < 0) start = i;
    else if (!wordChar && start >= 0) {
      let from = start;
      let to = i;
      while (from < to && lower.charCodeAt(from) === 0x2d) from++;
      while (to > from && lower.charCodeAt(to - 1) === 0x2d) to--;
      if (to > from) words.push(lower.slice(from, to));
      start = -1;
    }
  }
  return words;
}

function flat(page: PageText): { title: string; body: string } {
  const title = (page.title ?? '').slice(0, 1000).toLowerCase();
  const body = page.markdown.slice(0, MAX_SIGNAL_CHARS).toLowerCase().replace(/\s+/g, ' ');
  return { title, body };
}

export function pageSignals(page: PageText): PageSignals {
  const { title, body } = flat(page);
  const text = `${title} ${body}`;
  const parked = PARKED_PHRASES.filter((p) => text.includes(p));
  const forSale = FOR_SALE_PHRASES.filter((p) => text.includes(p));
  const titleTerms = new Set(wordsOf(title).filter((w) => SPAM_TERMS.has(w)));
  const terms = new Set([...titleTerms, ...wordsOf(body).filter((w) => SPAM_TERMS.has(w))]);
  const spam = terms.size + titleTerms.size >= SPAM_TERMS_NEEDED ? [...terms].sort() : [];
  return { parked, forSale, spam };
}

/** The name servers (lower case) that belong to a parking service. */
export function parkingNameservers(nameservers: readonly string[]): string[] {
  return nameservers.filter((ns) => {
    const name = ns.toLowerCase().replace(/\.+$/, '');
    return PARKING_NAMESERVERS.some((p) => name === p || name.endsWith(`.${p}`));
  });
}

/** Words of a page that may identify whose site it is: its title's, and the 40 most frequent of its text. */
export interface PageIdentity {
  readonly title: readonly string[];
  readonly content: readonly string[];
}

/** Most frequent words of a page's text kept for its identity. */
export const IDENTITY_WORDS = 40;

export function pageIdentity(page: PageText): PageIdentity {
  const { title, body } = flat(page);
  const keep = (w: string) => w.length >= 3 && !STOPWORDS.has(w) && !/^\d+$/.test(w);
  const counts = new Map<string, number>();
  for (const w of wordsOf(body.slice(0, 20_000))) if (w.length >= 4 && keep(w)) counts.set(w, (counts.get(w) ?? 0) + 1);
  const content = [...counts.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, IDENTITY_WORDS).map(([w]) => w);
  return { title: [...new Set(wordsOf(title).filter(keep))], content };
}

/** Shared share of two word sets (Jaccard), 0 when either is empty. */
export function overlap(a: readonly string[], b: readonly string[]): number {
  if (a.length === 0 || b.length === 0) return 0;
  const left = new Set(a);
  const right = new Set(b);
  let shared = 0;
  for (const w of left) if (right.has(w)) shared++;
  return shared / (left.size + right.size - shared);
}

/** Content overlap under which two pages are about different things. */
export const CONTENT_CHANGE_BELOW = 0.1;

/**
 * Whether two pages look like different owners' sites: their content shares under
 * CONTENT_CHANGE_BELOW of its words and their titles share no word (or one has no title).
 * Pages with no words to compare are not judged.
 */
export function identityChanged(a: PageIdentity, b: PageIdentity): boolean {
  if (a.content.length === 0 || b.content.length === 0) return false;
  return overlap(a.content, b.content) < CONTENT_CHANGE_BELOW && overlap(a.title, b.title) === 0;
}
