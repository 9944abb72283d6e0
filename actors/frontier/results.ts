/**
 * The answer of a map: `search` keeps the URLs whose address or a title contains the text
 * (the page's own title, its sitemap title or the text of a link to it; case-insensitive; the address is also compared percent-decoded, so `café` finds
 * `/caf%C3%A9`), those matching in the address ranked before those matching only in the
 * title, each group in the order found; then at most `limit` of them.
 */

export interface MapLink {
  url: string;
  title?: string;
  description?: string;
}

/** 1: the address contains the text; 2: only the title does; 0: neither. No search: 1. */
export type MatchRank = 0 | 1 | 2;

function decoded(url: string): string {
  try {
    return decodeURI(url);
  } catch {
    return url;
  }
}

/** How `search` ranks a URL known under the titles `titles` (its own, its sitemap's, link texts). */
export function matcher(search: string | null | undefined): (url: string, titles: readonly string[]) => MatchRank {
  const needle = search?.trim().toLowerCase();
  if (!needle) return () => 1;
  return (url, titles) => {
    const lower = url.toLowerCase();
    if (lower.includes(needle) || decoded(lower).includes(needle)) return 1;
    if (titles.some((t) => t.toLowerCase().includes(needle))) return 2;
    return 0;
  };
}

const ownTitle = (link: MapLink): readonly string[] => (link.title ? [link.title] : []);

/**
 * The links `search` keeps, address matches first, at most `limit`. `titlesOf` gives every
 * title a link is known by (default: its `title`); any of them may match.
 */
export function rankLinks(
  links: readonly MapLink[],
  search: string | null | undefined,
  limit: number,
  titlesOf: (link: MapLink) => readonly string[] = ownTitle,
): MapLink[] {
  const rank = matcher(search);
  const first: MapLink[] = [];
  const second: MapLink[] = [];
  for (const link of links) {
    const r = rank(link.url, titlesOf(link));
    if (r === 1) first.push(link);
    else if (r === 2) second.push(link);
    if (first.length >= limit) break;
  }
  return [...first, ...second].slice(0, limit);
}
