/**
 * What a map (map.ts) has found so far: the URLs in the site by who found them (merged in
 * that order), the pages read (whose own title and description win), and whether there are
 * enough: `limit` URLs matching `search`, or `candidates` URLs held.
 */
import type { PageFacts } from './page-links.js';
import { matcher, type MapLink } from './results.js';
import { UrlSet, urlKey } from './urls.js';

/** A URL found, with its dedupe key. */
export interface Found {
  readonly link: MapLink;
  readonly key: string;
}

/** Who found a URL: merged in this order. */
export interface Sources {
  seed: Found[];
  home: Found[];
  sitemaps: Found[][];
  walk: Found[][];
}

/** URLs found so far, to know when there are enough. */
class Tally {
  private readonly seen = new Map<string, { url: string; matched: boolean }>();
  matches = 0;
  constructor(private readonly rank: (url: string, titles: readonly string[]) => number) {}

  get size(): number {
    return this.seen.size;
  }

  note({ link, key }: Found): void {
    const held = this.seen.get(key);
    const titles = link.title ? [link.title] : [];
    if (!held) {
      const matched = this.rank(link.url, titles) > 0;
      this.seen.set(key, { url: link.url, matched });
      if (matched) this.matches++;
      return;
    }
    if (!held.matched && this.rank(held.url, titles) > 0) {
      held.matched = true;
      this.matches++;
    }
  }
}

export interface FindingsOptions {
  readonly search: string | null;
  readonly limit: number;
  /** URLs held at most while looking. */
  readonly candidates: number;
  /** Whether a URL is in the site. */
  readonly keep: (url: string) => boolean;
  /** Called after each URL noted once there are enough. */
  readonly onEnough: () => void;
}

export class Findings {
  readonly sources: Sources = { seed: [], home: [], sitemaps: [], walk: [] };
  private readonly pages = new Map<string, PageFacts>();
  private readonly tally: Tally;

  constructor(private readonly options: FindingsOptions) {
    this.tally = new Tally(matcher(options.search));
  }

  keep(url: string): boolean {
    return this.options.keep(url);
  }

  note(found: Found): void {
    this.tally.note(found);
    if (this.tally.matches >= this.options.limit || this.tally.size >= this.options.candidates) this.options.onEnough();
  }

  /** A page read at `url` (cleaned): its title and description are the URL's. */
  notePage(url: string, facts: PageFacts): void {
    this.pages.set(urlKey(url), facts);
  }

  /** The links of a page that are in the site, noted. */
  inSiteLinks(facts: PageFacts): Found[] {
    const out: Found[] = [];
    for (const link of facts.links) {
      if (!this.keep(link.url)) continue;
      const found = { link: { url: link.url, ...(link.text ? { title: link.text } : {}) }, key: urlKey(link.url) };
      out.push(found);
      this.note(found);
    }
    return out;
  }

  merge(): { links: MapLink[]; titles: Map<MapLink, string[]> } {
    return merge(this.sources, this.pages);
  }
}

/**
 * The sources in their order, deduplicated; a page's own title and description win. Also
 * every title each link is known by (its page's, its sitemap's, link texts), for search.
 */
function merge(sources: Sources, pages: ReadonlyMap<string, PageFacts>): { links: MapLink[]; titles: Map<MapLink, string[]> } {
  const set = new UrlSet<MapLink>();
  const byKey = new Map<string, string[]>();
  const keys = new Map<MapLink, string>();
  for (const list of [sources.seed, sources.home, ...sources.sitemaps, ...sources.walk]) {
    for (const { link, key } of list) {
      const copy = { ...link };
      if (set.add(copy, key)) keys.set(copy, key);
      if (!link.title) continue;
      const known = byKey.get(key);
      if (!known) byKey.set(key, [link.title]);
      else if (!known.includes(link.title)) known.push(link.title);
    }
  }
  const links = set.values();
  const titles = new Map<MapLink, string[]>();
  for (const link of links) {
    const key = keys.get(link) ?? urlKey(link.url);
    const facts = pages.get(key);
    if (facts?.title) link.title = facts.title;
    if (facts?.description) link.description = facts.description;
    titles.set(link, [...(facts?.title ? [facts.title] : []), ...(byKey.get(key) ?? [])]);
  }
  return { links, titles };
}
