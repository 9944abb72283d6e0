/**
 * The `links` and `media` formats, read from the whole page (after `excludeTags`, before
 * main-content pruning), in document order, deduplicated.
 *
 * Scope: the whole page, so that navigation and footer links are listed too — what a
 * crawler or a map needs, and what the caller can filter. (Firecrawl's current source takes
 * `links` from its cleaned `html`, i.e. after onlyMainContent; older Firecrawl and most
 * users' expectations are the whole page. See the parser report.)
 *
 * links: `<a href>` and `<area href>`; absolute; http(s) only; fragment, user and password
 * dropped; `mailto:`, `tel:`, `javascript:` left out.
 *
 * media: `<img>` (src, else the largest srcset candidate, else data-src), `<picture>
 * <source srcset>` is skipped as a duplicate of its `<img>`; `<video>` / `<audio>` src and
 * their `<source src>`; `<iframe>` embeds of well-known video hosts as video. Only http(s)
 * URLs: inline `data:` images are never listed.
 */
import type { CheerioAPI } from 'cheerio';
import type { Element } from 'domhandler';
import type { MediaItem, MediaType } from '../document/types.js';
import { largestSrcset, linkUrl, mediaUrl } from './urls.js';

export function pageLinks($: CheerioAPI, base: string): string[] {
  const seen = new Set<string>();
  $('a[href], area[href]').each((_, el) => {
    const url = linkUrl(el.attribs['href'] ?? '', base);
    if (url) seen.add(url);
  });
  return [...seen];
}

const VIDEO_EMBED = /^https?:\/\/(?:www\.)?(?:youtube(?:-nocookie)?\.com\/embed\/|player\.vimeo\.com\/video\/|(?:www\.)?dailymotion\.com\/embed\/|fast\.wistia\.net\/embed\/)/i;

function imageSource(el: Element): string | undefined {
  const src = el.attribs['src']?.trim();
  if (src && !/^data:/i.test(src)) return src;
  const srcset = el.attribs['srcset'] ?? el.attribs['data-srcset'];
  return (srcset ? largestSrcset(srcset) : null) ?? el.attribs['data-src'] ?? src;
}

export function pageMedia($: CheerioAPI, base: string): MediaItem[] {
  const seen = new Set<string>();
  const out: MediaItem[] = [];
  const add = (type: MediaType, ref: string | undefined, alt?: string) => {
    const url = ref ? mediaUrl(ref, base) : null;
    if (!url || seen.has(url)) return;
    seen.add(url);
    const text = alt?.replace(/\s+/g, ' ').trim();
    out.push(text ? { type, url, alt: text } : { type, url });
  };
  $('img, video, audio, iframe[src]').each((_, el) => {
    switch (el.name) {
      case 'img':
        add('image', imageSource(el), el.attribs['alt']);
        break;
      case 'video':
      case 'audio': {
        const type: MediaType = el.name === 'video' ? 'video' : 'audio';
        const title = el.attribs['title'] ?? el.attribs['aria-label'];
        add(type, el.attribs['src'], title);
        for (const source of $(el).children('source[src]').toArray()) add(type, source.attribs['src'], title);
        break;
      }
      case 'iframe': {
        const url = mediaUrl(el.attribs['src'] ?? '', base);
        if (url && VIDEO_EMBED.test(url)) add('video', url, el.attribs['title']);
        break;
      }
    }
  });
  return out;
}
