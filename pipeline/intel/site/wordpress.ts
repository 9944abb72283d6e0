/**
 * WordPress's posts API: `<api root>wp/v2/posts?per_page=100&page=N&_embed=author` with only
 * the fields a post needs (`_fields`), paged until a short page, an error past the last page
 * (WordPress answers 400 `rest_post_invalid_page_number`), or the caller's limit. Newest first
 * is the API's own order (`orderby=date`). The author's name comes from the embedded author;
 * `date_gmt` and `modified_gmt` are UTC without a zone, read as UTC.
 *
 * The API root is the one woocommerce.ts finds (`wpApiRoot`): the home page's
 * `<link rel="https://api.w.org/">`, else `/wp-json/` on a WordPress page.
 */
import { htmlText } from '../../clients/social/html-text.js';
import { isoDate, list, record, text } from '../../clients/json-shapes.js';
import { clip, type Post } from './post.js';
import type { SiteReader } from './read.js';
import { apiUrl } from './woocommerce.js';

export const WP_PAGE_SIZE = 100;
const FIELDS = 'id,date_gmt,modified_gmt,link,title,excerpt,author,_links,_embedded';

const rendered = (value: unknown): string | null => {
  const raw = text(record(value)?.rendered);
  return raw ? text(htmlText(raw)) : null;
};

/** One post of the API in the common shape; null without a link. */
export function wordpressPost(raw: unknown): Post | null {
  const p = record(raw);
  const link = text(p?.link);
  if (!p || !link) return null;
  const author = text(record(list(record(p._embedded)?.author)[0])?.name);
  return {
    title: rendered(p.title),
    link,
    author,
    published: isoDate(p.date_gmt),
    updated: isoDate(p.modified_gmt),
    summary: clip(rendered(p.excerpt)),
    source: 'wordpress',
  };
}

export interface WordpressListing {
  readonly posts: Post[];
  readonly truncated: boolean;
  /** The API answered (a site whose API is off, or answers no posts route, did not). */
  readonly answered: boolean;
}

/** Pages the posts API (see the file comment). */
export async function wordpressPosts(root: string, reader: SiteReader, limit: number): Promise<WordpressListing> {
  const posts: Post[] = [];
  let answered = false;
  let lastFull = false;
  for (let page = 1; ; page += 1) {
    const got = await reader.json(apiUrl(root, 'wp/v2/posts', { per_page: WP_PAGE_SIZE, page, _embed: 'author', _fields: FIELDS }));
    const items = got?.value;
    if (!Array.isArray(items)) break;
    answered = true;
    for (const item of items) {
      const post = wordpressPost(item);
      if (post) posts.push(post);
    }
    lastFull = items.length >= WP_PAGE_SIZE;
    if (posts.length >= limit || !lastFull || reader.signal?.aborted) break;
  }
  return { posts: posts.slice(0, limit), truncated: posts.length > limit || (lastFull && (posts.length === limit || reader.budgetSpent)), answered };
}
