/**
 * The first read of every site reader: the site's home page, and what its answer says about
 * the site.
 *
 * - No answer at all (the read path failed: DNS, refused, timeout) → AppError `site_unreachable`.
 * - 401, 403, 407, 429, or 503 and a bot challenge (Cloudflare's "Just a moment…", a captcha
 *   page) → `site_blocked`: the site refuses to be read, by us or by anyone not in a browser.
 * - Another error status (404, 500, …) on the home page → the URL the caller gave is tried
 *   instead when it is another page; when that fails too, `site_unreachable` with the status.
 * - A 2xx answer that is not HTML, or HTML past the readers' size or depth limits (limits.ts)
 *   → `site_unreachable` (nothing to read a site from).
 * - A redirect to another host (`example.com` → `www.example.com`, or to a shop platform's
 *   domain) makes that host the site the reader goes on with.
 */
import { AppError } from '../../runtime/errors.js';
import { loadPage, looksLikeChallenge, type HtmlPage } from './html.js';
import { isOk, looksHtml, readableHtml, type ReadResult, type SiteReader } from './read.js';
import { siteOf, type Site } from './site.js';

export interface Home {
  /** The site as the home page's final URL names it. */
  readonly site: Site;
  readonly page: HtmlPage;
  /** The raw answer (status, final URL). */
  readonly answer: ReadResult;
}

const BLOCKING = new Set([401, 403, 407, 429]);

/** Whether an answer is the site refusing us (see the file comment). */
export function isBlocked(page: ReadResult): boolean {
  if (BLOCKING.has(page.status)) return true;
  return (page.status === 503 || page.status === 200) && looksLikeChallenge(page.body);
}

function failure(site: Site, page: ReadResult | null): AppError {
  if (!page) return new AppError('site_unreachable', `${site.home} did not answer (the fetch failed: no such host, refused, or timed out)`);
  if (isBlocked(page)) return new AppError('site_blocked', `${site.home} refuses to be read: it answered ${page.status}${page.status === 200 ? ' with a bot challenge' : ''}`);
  const status = page.status;
  if (status >= 200 && status < 300) return new AppError('site_unreachable', `${site.home} answered ${page.contentType || 'an untyped body'}, not an HTML page`);
  return new AppError('site_unreachable', `${site.home} answered HTTP ${status}`);
}

/** Reads the home page (or, failing it, the page the caller named); throws the file comment's errors. */
export async function homePage(asked: Site, reader: SiteReader, givenUrl?: string): Promise<Home> {
  let answer = await reader.page(asked.home, 'html');
  if (answer && !isOk(answer) && !isBlocked(answer) && givenUrl && givenUrl !== asked.home) {
    const given = await reader.page(givenUrl, 'html');
    if (isOk(given)) answer = given;
  }
  if (!answer || !isOk(answer) || isBlocked(answer) || !looksHtml(answer)) throw failure(asked, answer);
  if (!readableHtml(answer)) throw new AppError('site_unreachable', `${asked.home} answered a page too large or too deeply nested to read (limits: MAX_HTML_CHARS, MAX_HTML_DEPTH)`);
  const site = siteOf(answer.url) ?? asked;
  return { site, page: loadPage(answer.url, answer.body), answer };
}
