/**
 * Blogs and a forum for the posts reader's tests, each speaking its platform's real formats
 * as reference-shapes-wave2.md §6 records them:
 *
 * - `wordpressBlog(n)`: a home page naming its API root, its RSS feed and its comments feed;
 *   `/wp-json/wp/v2/posts` (`per_page` ≤ 100, `page`, `_embed`; 400
 *   `rest_post_invalid_page_number` past the end; X-WP-Total headers) newest first; `/feed/`,
 *   RSS 2.0 of the newest 10 whose links carry `utm_*` parameters (the same posts by another
 *   URL); `/comments/feed/` (comments, not posts).
 * - `feedsBlog()`: a static blog naming an Atom feed and a JSON Feed that overlap.
 * - `sitemapBlog(n)`: no feed at all; `/sitemap.xml` lists `/blog/<slug>/` pages with
 *   `lastmod`, each marked up as a BlogPosting (every fourth only with `og:` meta tags).
 * - `discourseForum(n)`: a Discourse home page (its generator meta) and `/latest.rss`.
 *
 * `blogPosts(n)` is the truth: post i is dated i days before BLOG_NOW, so index order is
 * newest first.
 */
import { html, json, jsonLd, page, xml, type Routes } from './server.js';

export const BLOG_NOW = Date.UTC(2025, 4, 20, 12);
const DAY = 86_400_000;

export interface TruthPost {
  readonly slug: string;
  readonly title: string;
  readonly author: string;
  readonly publishedMs: number;
  readonly updatedMs: number;
  readonly summary: string;
}

export function blogPosts(n: number): TruthPost[] {
  return Array.from({ length: n }, (_, i) => ({
    slug: `post-${n - i}`,
    title: `Notes & thoughts #${n - i}`,
    author: i % 2 ? 'Ada Writer' : 'Bo Blogger',
    publishedMs: BLOG_NOW - (i + 1) * DAY,
    updatedMs: BLOG_NOW - (i + 1) * DAY + 3_600_000,
    summary: `Summary of post ${n - i}.`,
  }));
}

const iso = (ms: number) => new Date(ms).toISOString();
/** WordPress's `date_gmt`: UTC, no zone. */
const gmt = (ms: number) => iso(ms).slice(0, 19);
const rfc822 = (ms: number) => new Date(ms).toUTCString();

export function wordpressBlog(truth: readonly TruthPost[]): Routes {
  return (path, query, origin) => {
    const link = (p: TruthPost) => `${origin}/${new Date(p.publishedMs).getUTCFullYear()}/${p.slug}/`;
    if (path === '/') {
      return html(
        page(
          'Ada & Bo’s blog',
          truth.slice(0, 5).map((p) => `<article><a href="${link(p)}">${p.title}</a></article>`).join(''),
          `<link rel="https://api.w.org/" href="${origin}/wp-json/"><link rel="alternate" type="application/rss+xml" title="Feed" href="${origin}/feed/">
           <link rel="alternate" type="application/rss+xml" title="Comments Feed" href="${origin}/comments/feed/"><link rel="stylesheet" href="/wp-content/themes/x/style.css">`,
        ),
      );
    }
    if (path === '/wp-json/wp/v2/posts') {
      const perPage = Math.min(100, Math.max(1, Number(query.get('per_page') ?? 10) || 10));
      const n = Math.max(1, Number(query.get('page') ?? 1) || 1);
      const pages = Math.max(1, Math.ceil(truth.length / perPage));
      if (n > pages) return { status: 400, type: 'application/json', body: JSON.stringify({ code: 'rest_post_invalid_page_number', message: 'The page number requested is larger than the number of pages available.', data: { status: 400 } }) };
      const items = truth.slice((n - 1) * perPage, n * perPage).map((p, k) => ({
        id: 5000 - (n - 1) * perPage - k,
        date: gmt(p.publishedMs),
        date_gmt: gmt(p.publishedMs),
        modified_gmt: gmt(p.updatedMs),
        link: link(p),
        title: { rendered: p.title.replace('&', '&#038;') },
        excerpt: { rendered: `<p>${p.summary} [&hellip;]</p>\n`, protected: false },
        author: p.author === 'Ada Writer' ? 2 : 3,
        _links: { author: [{ embeddable: true, href: `${origin}/wp-json/wp/v2/users/2` }] },
        _embedded: { author: [{ id: 2, name: p.author, slug: p.author.toLowerCase().replace(' ', '-') }] },
      }));
      return json(items, { 'x-wp-total': String(truth.length), 'x-wp-totalpages': String(pages) });
    }
    if (path === '/feed/') {
      const items = truth
        .slice(0, 10)
        .map((p) => `<item><title>${p.title.replace('&', '&amp;')}</title><link>${link(p)}?utm_source=rss&amp;utm_medium=rss</link><dc:creator><![CDATA[${p.author}]]></dc:creator><pubDate>${rfc822(p.publishedMs)}</pubDate><description><![CDATA[${p.summary}]]></description><content:encoded><![CDATA[<p>${p.summary} Full text.</p>]]></content:encoded></item>`)
        .join('');
      return xml(`<?xml version="1.0" encoding="UTF-8"?><rss version="2.0" xmlns:content="http://purl.org/rss/1.0/modules/content/" xmlns:dc="http://purl.org/dc/elements/1.1/"><channel><title>Blog</title><link>${origin}</link>${items}</channel></rss>`, 'application/rss+xml; charset=UTF-8');
    }
    if (path === '/comments/feed/') {
      return xml(`<?xml version="1.0"?><rss version="2.0"><channel><title>Comments</title><item><title>Comment on x</title><link>${origin}/2025/x/#comment-1</link></item></channel></rss>`, 'application/rss+xml');
    }
    return null;
  };
}

export function feedsBlog(truth: readonly TruthPost[]): Routes {
  return (path, _query, origin) => {
    const link = (p: TruthPost) => `${origin}/posts/${p.slug}.html`;
    if (path === '/') {
      return html(page('Static notes', '<h1>Static notes</h1>', `<link rel="alternate" type="application/atom+xml" href="/atom.xml"><link rel="alternate" type="application/feed+json" href="/feed.json">`));
    }
    if (path === '/atom.xml') {
      const entries = truth
        .slice(0, 8)
        .map((p) => `<entry><id>tag:notes,2025:${p.slug}</id><title>${p.title.replace('&', '&amp;')}</title><link href="${link(p)}"/><published>${iso(p.publishedMs)}</published><updated>${iso(p.updatedMs)}</updated><author><name>${p.author}</name></author><summary>${p.summary}</summary></entry>`)
        .join('');
      return xml(`<?xml version="1.0"?><feed xmlns="http://www.w3.org/2005/Atom"><title>Static notes</title><id>tag:notes</id><updated>${iso(BLOG_NOW)}</updated>${entries}</feed>`, 'application/atom+xml');
    }
    if (path === '/feed.json') {
      // Overlaps the Atom feed (posts 4–12), links written with a trailing fragment.
      const items = truth.slice(4, 12).map((p) => ({ id: link(p), url: `${link(p)}#top`, title: p.title, date_published: iso(p.publishedMs), authors: [{ name: p.author }], content_text: `${p.summary} Body.`, summary: p.summary }));
      return json({ version: 'https://jsonfeed.org/version/1.1', title: 'Static notes', home_page_url: origin, items });
    }
    return null;
  };
}

export function sitemapBlog(truth: readonly TruthPost[]): Routes {
  return (path, _query, origin) => {
    const link = (p: TruthPost) => `${origin}/blog/${p.slug}/`;
    if (path === '/') return html(page('Quiet blog', '<h1>Quiet blog</h1><a href="/about/">About</a>'));
    if (path === '/sitemap.xml') {
      const urls = [`<url><loc>${origin}/</loc></url>`, `<url><loc>${origin}/about/</loc></url>`, ...[...truth].reverse().map((p) => `<url><loc>${link(p)}</loc><lastmod>${iso(p.updatedMs)}</lastmod></url>`)];
      return xml(`<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${urls.join('')}</urlset>`);
    }
    const post = truth.find((p) => path === `/blog/${p.slug}/`);
    if (!post) return null;
    const i = truth.indexOf(post);
    if (i % 4 === 3) {
      const meta = `<meta property="og:type" content="article"><meta property="og:title" content="${post.title}"><meta property="article:published_time" content="${iso(post.publishedMs)}"><meta name="author" content="${post.author}"><meta name="description" content="${post.summary}"><link rel="canonical" href="${link(post)}">`;
      return html(page(`${post.title} – Quiet blog`, `<h1>${post.title}</h1><p>${post.summary}</p>`, meta));
    }
    const ld = { '@context': 'https://schema.org', '@type': 'BlogPosting', headline: post.title, author: { '@type': 'Person', name: post.author }, datePublished: iso(post.publishedMs), dateModified: iso(post.updatedMs), description: post.summary, url: link(post) };
    return html(page(`${post.title} – Quiet blog`, `<h1>${post.title}</h1><p>${post.summary}</p>`, jsonLd(ld)));
  };
}

export function discourseForum(truth: readonly TruthPost[]): Routes {
  return (path, _query, origin) => {
    const link = (p: TruthPost, i: number) => `${origin}/t/${p.slug}/${100 + i}`;
    if (path === '/') return html(page('Widget Community', '<div id="main-outlet"></div>', '<meta name="generator" content="Discourse 3.2.0 - https://github.com/discourse/discourse version 1234">'));
    if (path === '/latest.rss') {
      const items = truth
        .slice(0, 30)
        .map((p, i) => `<item><title>${p.title.replace('&', '&amp;')}</title><dc:creator><![CDATA[${p.author}]]></dc:creator><category>General</category><description><![CDATA[<p>${p.summary}</p>]]></description><link>${link(p, i)}</link><pubDate>${rfc822(p.publishedMs)}</pubDate><guid isPermaLink="false">${origin}-topic-${100 + i}</guid></item>`)
        .join('');
      return xml(`<?xml version="1.0" encoding="UTF-8"?><rss version="2.0" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:atom="http://www.w3.org/2005/Atom"><channel><title>Widget Community - Latest topics</title><link>${origin}/latest</link>${items}</channel></rss>`, 'application/rss+xml; charset=utf-8');
    }
    return null;
  };
}
