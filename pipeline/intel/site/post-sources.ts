/**
 * Where a site's posts are, besides WordPress's API (wordpress.ts): its feeds, its forum
 * software's feeds, and, for a site with neither, its post pages' Article markup.
 *
 * - Feeds: the home page's `<link rel="alternate">` feeds (RSS, Atom, JSON Feed: feedLinks of
 *   pipeline/clients/social/feeds-parse.ts), comment feeds left out, at most MAX_FEEDS; a site
 *   that names none is probed at the usual places (COMMON_FEED_PATHS), the first feed found
 *   ending the probe. Read with the same parser as mention watches' feeds.
 * - Forums, told by their pages' marks: Discourse (`/latest.rss`), phpBB (`/app.php/feed`,
 *   `/feed.php`), XenForo (`/forums/-/index.rss`), vBulletin (`/external.php?type=RSS2`), MyBB
 *   (`/syndication.php`).
 * - Post pages: the sitemaps' entries (post sitemaps first) whose path is a post's (`/blog/x`,
 *   `/posts/x`, `/news/x`, `/2024/05/x`, …), newest first by `lastmod`, read for their Article
 *   markup (any Article subtype, or a forum posting), else their `og:type=article` meta tags.
 */
import { mapBounded } from '../../runtime/bounded.js';
import { COMMON_FEED_PATHS } from '../../clients/social/feeds.js';
import { feedLinks, parseFeed, type FeedItem } from '../../clients/social/feeds-parse.js';
import { findThings, isType } from '../../structured/markup/index.js';
import type { HtmlPage } from './html.js';
import { loadPage } from './html.js';
import { ITEM_PAGES_MAX, READ_CONCURRENCY } from './limits.js';
import { clip, isoOf, type Post } from './post.js';
import type { SiteReader } from './read.js';
import { onSite, siteUrl, type Site } from './site.js';
import { siteSitemaps, type SitemapEntry } from './sitemap.js';
import { textOf } from './things.js';

export const MAX_FEEDS = 3;

export type Forum = 'discourse' | 'phpbb' | 'xenforo' | 'vbulletin' | 'mybb';

const FORUMS: readonly { readonly forum: Forum; readonly marks: readonly string[]; readonly feeds: readonly string[] }[] = [
  { forum: 'discourse', marks: ['content="discourse', 'discourse-assets', 'data-discourse-setup'], feeds: ['/latest.rss'] },
  { forum: 'phpbb', marks: ['phpbb'], feeds: ['/app.php/feed', '/feed.php'] },
  { forum: 'xenforo', marks: ['xenforo'], feeds: ['/forums/-/index.rss'] },
  { forum: 'vbulletin', marks: ['vbulletin'], feeds: ['/external.php?type=RSS2'] },
  { forum: 'mybb', marks: ['mybb'], feeds: ['/syndication.php'] },
];

/** The forum software the home page (as served) shows, if any. */
export function forumOf(raw: string): (typeof FORUMS)[number] | null {
  const head = raw.slice(0, 1_000_000).toLowerCase();
  return FORUMS.find((f) => f.marks.some((m) => head.includes(m))) ?? null;
}

export function feedPost(item: FeedItem): Post | null {
  if (!item.link) return null;
  return {
    title: item.title,
    link: item.link,
    author: item.author,
    published: isoOf(item.publishedAtMs),
    updated: isoOf(item.updatedAtMs),
    summary: clip(item.summary ?? (item.text || null)),
    source: 'feed',
  };
}

export interface FeedsRead {
  /** The feeds that answered, as read. */
  readonly feeds: string[];
  readonly posts: Post[];
  readonly failed: string[];
}

function isCommentFeed(url: string): boolean {
  return /\/comments?(\/|$|\.)/i.test(new URL(url).pathname);
}

/** The site's feeds and forum feeds, read (see the file comment). */
export async function readFeeds(site: Site, home: HtmlPage, raw: string, reader: SiteReader, nowMs: number): Promise<FeedsRead> {
  const forum = forumOf(raw);
  const linked = feedLinks(raw, home.url).filter((u) => !isCommentFeed(u) && !u.includes('/wp-json'));
  const named = [...new Set([...linked, ...(forum?.feeds ?? []).map((p) => siteUrl(site, p))])].slice(0, MAX_FEEDS);
  const out: FeedsRead = { feeds: [], posts: [], failed: [] };
  const readOne = async (url: string): Promise<boolean> => {
    const page = await reader.xml(url);
    const body = page ?? (await reader.json(url))?.page ?? null;
    if (!body) return false;
    let feed;
    try {
      feed = parseFeed(body.body, body.url, nowMs);
    } catch {
      feed = null;
    }
    if (!feed) return false;
    out.feeds.push(body.url);
    for (const item of feed.items) {
      const post = feedPost(item);
      if (post) out.posts.push(post);
    }
    return true;
  };
  for (const url of named) if (!(await readOne(url))) out.failed.push(url);
  if (!named.length) {
    for (const path of COMMON_FEED_PATHS) if (await readOne(siteUrl(site, path))) break;
  }
  return out;
}

// ---- post pages and their markup -------------------------------------------------------------

const POST_SEGMENTS = new Set(['blog', 'blogs', 'post', 'posts', 'news', 'article', 'articles', 'journal', 'stories', 'story', 'magazin', 'magazine', 'aktuelles', 'actualites', 'noticias', 'notizie', 't', 'topic', 'topics', 'thread', 'threads']);

/** Whether a URL's path is a post's: below a post segment, or below a year (`/2024/…`). */
export function isPostPath(url: string): boolean {
  let segments: string[];
  try {
    segments = new URL(url).pathname.toLowerCase().split('/').filter(Boolean);
  } catch {
    return false;
  }
  const parents = segments.slice(0, -1);
  return segments.length >= 2 && parents.some((s) => POST_SEGMENTS.has(s) || /^(19|20)\d\d$/.test(s));
}

function postSitemapRank(url: string): number {
  const path = url.toLowerCase();
  if (/post|blog|article|news/.test(path)) return 3;
  if (/product|categor|tag|author|image|video/.test(path)) return -1;
  return 1;
}

/** ISO 8601 of a markup or meta date, when it reads and is not ahead of `nowMs`. */
function dateOf(raw: string | null, nowMs: number): string | null {
  const ms = raw ? Date.parse(raw) : NaN;
  return Number.isFinite(ms) && ms <= nowMs + 86_400_000 ? new Date(ms).toISOString() : null;
}

/** The page's post: its Article (or forum posting) markup, else its `og:type=article` meta tags; null when it is neither. */
export function markupPost(page: Pick<HtmlPage, 'things' | 'url' | 'canonical' | 'title' | 'meta'>, entry: SitemapEntry | null, nowMs: number): Post | null {
  const article = page.things.find((t) => isType(t, 'Article') || isType(t, 'SocialMediaPosting')) ?? findThings({ things: page.things }, ['Article', 'SocialMediaPosting'])[0];
  if (article) {
    return {
      title: textOf(article, 'headline') ?? textOf(article, 'name') ?? page.title,
      link: textOf(article, 'url') ?? page.canonical ?? page.url,
      author: textOf(article, 'author') ?? textOf(article, 'creator'),
      published: dateOf(textOf(article, 'datePublished') ?? textOf(article, 'dateCreated'), nowMs),
      updated: dateOf(textOf(article, 'dateModified') ?? entry?.lastmod ?? null, nowMs),
      summary: clip(textOf(article, 'description') ?? textOf(article, 'abstract') ?? page.meta('description')),
      source: 'markup',
    };
  }
  if (page.meta('og:type') !== 'article') return null;
  return {
    title: page.meta('og:title') ?? page.title,
    link: page.canonical ?? page.url,
    author: page.meta('article:author') ?? page.meta('author'),
    published: dateOf(page.meta('article:published_time'), nowMs),
    updated: dateOf(page.meta('article:modified_time') ?? entry?.lastmod ?? null, nowMs),
    summary: clip(page.meta('og:description') ?? page.meta('description')),
    source: 'markup',
  };
}

export interface MarkupPosts {
  readonly posts: Post[];
  readonly more: boolean;
  readonly unread: number;
  readonly failed: number;
}

/** The post pages of the sitemaps and home page, newest first, read for their markup (see the file comment). */
export async function readMarkupPosts(site: Site, home: HtmlPage, reader: SiteReader, limit: number, nowMs: number): Promise<MarkupPosts> {
  const entries = await siteSitemaps(site, reader, postSitemapRank);
  const time = (e: SitemapEntry) => (e.lastmod ? Date.parse(e.lastmod) : NaN);
  const sorted = entries
    .filter((e) => isPostPath(e.url))
    .map((e, i) => ({ e, i, t: time(e) }))
    .sort((a, b) => (Number.isFinite(b.t) ? b.t : -Infinity) - (Number.isFinite(a.t) ? a.t : -Infinity) || a.i - b.i)
    .map(({ e }) => e);
  const linked = home.links.map((l) => l.href.split('#')[0] as string).filter((u) => onSite(site, u) && isPostPath(u));
  const seen = new Set<string>();
  const candidates: SitemapEntry[] = [];
  for (const e of [...sorted, ...linked.map((url) => ({ url, lastmod: null }))]) {
    if (!seen.has(e.url)) {
      seen.add(e.url);
      candidates.push(e);
    }
  }
  const chosen = candidates.slice(0, Math.min(limit, ITEM_PAGES_MAX, reader.remaining));
  let failed = 0;
  const read = await mapBounded(
    chosen,
    READ_CONCURRENCY,
    async (entry) => {
      const page = await reader.html(entry.url);
      if (!page) {
        failed += 1;
        return null;
      }
      return markupPost(loadPage(page.url, page.body), entry, nowMs);
    },
    reader.signal,
  );
  return {
    posts: read.filter((p): p is Post => !!p),
    more: candidates.length > chosen.length,
    unread: Math.max(0, Math.min(candidates.length, limit) - chosen.length),
    failed,
  };
}
