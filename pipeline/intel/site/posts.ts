/**
 * POST /v1/posts: a blog's or forum's posts, newest first.
 *
 * 1. The home page (home.ts: `site_unreachable`, `site_blocked`).
 * 2. WordPress's posts API when the site runs WordPress (wordpress.ts): paged to `limit`.
 * 3. The site's feeds and its forum software's feeds (post-sources.ts), always: they add what
 *    the API left out and fill its gaps.
 * 4. Only when neither gave a post: the post pages its sitemaps and home page name, read for
 *    their Article markup.
 * 5. One post per canonical URL across sources (post.ts `mergePosts`), newest first, cut to
 *    `limit`. Nothing anywhere: `no_posts_found`.
 *
 * `truncated` says the site may have more posts than listed; `warning` names feeds or pages
 * that could not be read, and limits that cut the reading short.
 */
import { AppError } from '../../runtime/errors.js';
import { homePage } from './home.js';
import { ITEM_PAGES_MAX, listingPageBudget } from './limits.js';
import { mergePosts, type Post } from './post.js';
import { forumOf, readFeeds, readMarkupPosts, type Forum } from './post-sources.js';
import { budgetWarning, deadlineOf, SiteReader, type ListingOptions } from './read.js';
import { siteOf } from './site.js';
import { wordpressPosts } from './wordpress.js';
import { wpApiRoot } from './woocommerce.js';

export type { Post } from './post.js';

export interface PostsAnswer {
  readonly domain: string;
  readonly url: string;
  /** The blog or forum software the site runs, when known. */
  readonly platform: 'wordpress' | Forum | null;
  /** The feeds and APIs read (and, for markup, `sitemap`). */
  readonly sources: readonly string[];
  readonly posts: readonly Post[];
  readonly truncated: boolean;
  readonly pagesRead: number;
  readonly warning: string | null;
}

const joined = (parts: readonly (string | null)[]): string | null => parts.filter(Boolean).join('; ') || null;

/** Lists the site's posts (see the file comment). */
export async function readPosts(input: string, opts: ListingOptions): Promise<PostsAnswer> {
  const asked = siteOf(input);
  if (!asked) throw new AppError('validation_failed', `"${input.slice(0, 100)}" is not a domain or an http(s) URL`);
  const limit = Math.max(1, Math.min(10_000, Math.floor(opts.limit)));
  const maxPages = opts.maxPages ?? listingPageBudget(limit);
  const nowMs = (opts.now ?? Date.now)();
  const reader = new SiteReader({ read: opts.read, maxPages, ...(opts.signal ? { signal: opts.signal } : {}), ...deadlineOf(opts) });
  const { site, page: home, answer } = await homePage(asked, reader, input.includes('/') ? input : undefined);

  const forum = forumOf(answer.body);
  const wpRoot = forum ? null : wpApiRoot(home, answer.body, site);
  const sources: string[] = [];
  const lists: Post[][] = [];
  let truncated = false;
  if (wpRoot) {
    const wp = await wordpressPosts(wpRoot, reader, limit);
    if (wp.answered) sources.push(wpRoot);
    lists.push(wp.posts);
    truncated = wp.truncated;
  }
  const feeds = await readFeeds(site, home, answer.body, reader, nowMs);
  sources.push(...feeds.feeds);
  lists.push(feeds.posts);
  const warnings: (string | null)[] = [feeds.failed.length ? `feed(s) that could not be read: ${feeds.failed.slice(0, 3).join(', ')}` : null];

  if (!lists.some((l) => l.length)) {
    const markup = await readMarkupPosts(site, home, reader, limit, nowMs);
    if (markup.posts.length) sources.push('sitemap');
    lists.push(markup.posts);
    truncated = markup.more;
    warnings.push(
      markup.unread ? `${markup.unread} more post page(s) were found but not read (at most ${ITEM_PAGES_MAX} a call, within the page budget)` : null,
      markup.failed ? `${markup.failed} post page(s) could not be read` : null,
    );
  }
  const merged = mergePosts(lists);
  if (!merged.length) throw new AppError('no_posts_found', `${site.home} offers no feed, no WordPress posts API, and no page its sitemaps or home page name marks up a post`);
  warnings.push(budgetWarning(reader, maxPages));
  return {
    domain: asked.domain,
    url: home.url,
    platform: wpRoot && sources.includes(wpRoot) ? 'wordpress' : (forum?.forum ?? null),
    sources,
    posts: merged.slice(0, limit),
    truncated: truncated || merged.length > limit,
    pagesRead: reader.pagesRead,
    warning: joined(warnings),
  };
}
