/**
 * pipeline/intel/site/posts.ts against a local WordPress blog, a static blog with Atom and
 * JSON feeds, a blog with only a sitemap and Article markup, and a Discourse forum
 * (test/helpers/fake-sites/blogs.ts), read over the runtime's HTTP stack.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { readPosts } from '../../pipeline/intel/site/posts.js';
import { hasCode } from '../../pipeline/runtime/errors.js';
import { BLOG_NOW, blogPosts, discourseForum, feedsBlog, sitemapBlog, wordpressBlog } from '../helpers/fake-sites/blogs.js';
import { localSites, readOver } from '../helpers/fake-sites/read.js';
import { html, page, type FakeSite, type Routes } from '../helpers/fake-sites/server.js';

const sites = localSites();
const { http } = sites;
const site = (routes: Routes): Promise<FakeSite> => sites.site(routes);
const read = readOver(http);
const now = () => BLOG_NOW;
afterAll(() => sites.close());

const iso = (ms: number) => new Date(ms).toISOString();

describe('pipeline/intel/site readPosts', () => {
  it('WordPress: pages the posts API, merges its RSS feed by canonical URL, skips the comments feed; newest first', async () => {
    const truth = blogPosts(230);
    const blog = await site(wordpressBlog(truth));
    const answer = await readPosts(blog.origin, { limit: 10_000, read, now });
    expect(answer.platform).toBe('wordpress');
    expect(answer.posts).toHaveLength(230);
    expect(answer.truncated).toBe(false);
    expect(blog.requests.filter((r) => r.startsWith('/wp-json/wp/v2/posts'))).toHaveLength(3);
    expect(blog.requests).toContain('/feed/');
    expect(blog.requests).not.toContain('/comments/feed/');
    const first = answer.posts[0];
    const t = truth[0] as (typeof truth)[number];
    expect(first).toMatchObject({ title: t.title, author: t.author, published: iso(t.publishedMs), updated: iso(t.updatedMs), source: 'wordpress' });
    expect(first?.summary).toContain(t.summary);
    const times = answer.posts.map((p) => Date.parse(p.published ?? ''));
    expect(times).toEqual([...times].sort((a, b) => b - a));
  });

  it('WordPress: stops at the limit', async () => {
    const blog = await site(wordpressBlog(blogPosts(230)));
    const answer = await readPosts(blog.origin, { limit: 50, read, now });
    expect(answer.posts).toHaveLength(50);
    expect(answer.truncated).toBe(true);
    expect(blog.requests.filter((r) => r.startsWith('/wp-json/wp/v2/posts'))).toHaveLength(1);
  });

  it('Atom and JSON Feed: one post per URL across the two feeds, with the fields of both', async () => {
    const truth = blogPosts(20);
    const blog = await site(feedsBlog(truth));
    const answer = await readPosts(blog.origin, { limit: 500, read, now });
    expect(answer.sources).toEqual([blog.url('/atom.xml'), blog.url('/feed.json')]);
    expect(answer.posts).toHaveLength(12);
    expect(answer.posts.map((p) => p.title)).toEqual(truth.slice(0, 12).map((p) => p.title));
    expect(answer.posts[0]).toMatchObject({ author: truth[0]?.author, updated: iso(truth[0]?.updatedMs as number), summary: truth[0]?.summary, source: 'feed' });
  });

  it('a blog with only a sitemap: its post pages\' Article markup and og: tags, newest first', async () => {
    const truth = blogPosts(9);
    const blog = await site(sitemapBlog(truth));
    const answer = await readPosts(blog.origin, { limit: 500, read, now });
    expect(answer.sources).toEqual(['sitemap']);
    expect(answer.posts.map((p) => p.title)).toEqual(truth.map((p) => p.title));
    expect(answer.posts.map((p) => p.author)).toEqual(truth.map((p) => p.author));
    expect(answer.posts.map((p) => p.published)).toEqual(truth.map((p) => iso(p.publishedMs)));
    expect(answer.posts.every((p) => p.source === 'markup')).toBe(true);
  });

  it('a Discourse forum: its latest topics feed', async () => {
    const truth = blogPosts(40);
    const forum = await site(discourseForum(truth));
    const answer = await readPosts(forum.origin, { limit: 500, read, now });
    expect(answer.platform).toBe('discourse');
    expect(answer.posts).toHaveLength(30);
    expect(answer.posts[0]).toMatchObject({ title: truth[0]?.title, author: truth[0]?.author, link: forum.url(`/t/${truth[0]?.slug}/100`) });
  });

  it('a site with none of it is no_posts_found', async () => {
    const plain = await site((path) => (path === '/' ? html(page('Brochure', '<p>Call us.</p>')) : null));
    await expect(readPosts(plain.origin, { limit: 10, read, now })).rejects.toSatisfy((e) => hasCode(e, 'no_posts_found'));
  });
});
