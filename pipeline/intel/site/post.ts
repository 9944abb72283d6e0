/**
 * The post shape every posts source answers in (feeds, the WordPress API, forums' feeds,
 * Article markup), and the rules they share: one post per canonical URL, newest first.
 */

import { trimEndOf } from '../../runtime/trim.js';

export type PostSource = 'feed' | 'wordpress' | 'markup';

export interface Post {
  readonly title: string | null;
  readonly link: string;
  readonly author: string | null;
  /** ISO 8601. */
  readonly published: string | null;
  readonly updated: string | null;
  /** Plain text, at most SUMMARY_CHARS characters. */
  readonly summary: string | null;
  /** Where the post was read. */
  readonly source: PostSource;
}

export const SUMMARY_CHARS = 500;

const TRACKING = /^(utm_|fbclid$|gclid$|mc_|ref$|source$)/;

/**
 * What two links to one post share: `https`, host without `www.`, lower case, no fragment, no
 * tracking parameters (`utm_*`, `fbclid`, …), no trailing slash; the link itself when it does
 * not parse.
 */
export function postKey(link: string): string {
  try {
    const url = new URL(link);
    const params = [...url.searchParams].filter(([k]) => !TRACKING.test(k.toLowerCase()));
    const query = params.length ? `?${new URLSearchParams(params).toString()}` : '';
    const path = trimEndOf(url.pathname, '/');
    return `${url.hostname.toLowerCase().replace(/^www\./, '')}${url.port ? `:${url.port}` : ''}${path}${query}`;
  } catch {
    return link;
  }
}

/** A summary cut to SUMMARY_CHARS at a word boundary, with an ellipsis when cut. */
export function clip(text: string | null): string | null {
  const t = text?.replace(/\s+/g, ' ').trim();
  if (!t) return null;
  if (t.length <= SUMMARY_CHARS) return t;
  const cut = t.slice(0, SUMMARY_CHARS);
  const space = cut.lastIndexOf(' ');
  return `${(space > SUMMARY_CHARS / 2 ? cut.slice(0, space) : cut).trimEnd()}…`;
}

/** Epoch ms as ISO 8601; null stays null. */
export const isoOf = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());

/**
 * Posts merged from several sources: one per `postKey`, the earlier source's post kept and its
 * empty fields filled from a later one's; then newest first (by `published`, else `updated`),
 * undated posts last in the order found.
 */
export function mergePosts(lists: readonly (readonly Post[])[]): Post[] {
  const byKey = new Map<string, Post>();
  for (const posts of lists) {
    for (const post of posts) {
      const key = postKey(post.link);
      const known = byKey.get(key);
      if (!known) byKey.set(key, post);
      else {
        byKey.set(key, {
          ...known,
          title: known.title ?? post.title,
          author: known.author ?? post.author,
          published: known.published ?? post.published,
          updated: known.updated ?? post.updated,
          summary: known.summary ?? post.summary,
        });
      }
    }
  }
  const time = (p: Post) => Date.parse(p.published ?? p.updated ?? '');
  return [...byKey.values()]
    .map((p, i) => ({ p, i, t: time(p) }))
    .sort((a, b) => (Number.isFinite(b.t) ? b.t : -Infinity) - (Number.isFinite(a.t) ? a.t : -Infinity) || a.i - b.i)
    .map(({ p }) => p);
}
