/**
 * Reads a rendered page's DOM as `page.content()` serializes it (the doctype, then the root
 * element's `outerHTML`), without Playwright's injected script.
 *
 * Playwright 1.65's `page.content()` runs its serializer from its injected script: the first
 * call in a page sends that script's source (about 0.3 MB) over the browser pipe and has the
 * page's renderer compile it — in a fresh context, on every render: about 25 ms of CPU per
 * page (a sixth of a simple page's render), which a plain Playwright script pays too. Here the
 * same serializer runs as one expression, through the page's CDP session, in an isolated world
 * of its own (as Playwright's utility world is: the page's scripts cannot change the
 * prototypes it uses). When that fails (the page started another navigation meanwhile, which
 * destroys the world), the same serializer runs through `page.evaluate` (`pageHtml`). Either
 * answers a page over RENDERED_HTML_MAX_CHARS `content_too_large`, its HTML left in the page.
 */
import type { CDPSession, Page } from 'playwright-core';
import { AppError, hasCode } from '../../pipeline/runtime/errors.js';

/**
 * The longest rendered page read, in characters: FETCH_MAX_BYTES's default, the largest page a
 * fetch reads. A page's scripts can build any DOM; read whole, one of hundreds of MB crossed the
 * browser pipe into this process as one message and one string.
 */
export const RENDERED_HTML_MAX_CHARS = 15 * 1024 * 1024;

/**
 * What Playwright's `documentContent` does without shadow roots: doctype + the root element;
 * its length instead when that is over RENDERED_HTML_MAX_CHARS (the HTML stays in the page).
 */
export const SERIALIZE_DOM = `(() => { let html = ''; if (document.doctype) html = new XMLSerializer().serializeToString(document.doctype); if (document.documentElement) html += document.documentElement.outerHTML; return html.length > ${RENDERED_HTML_MAX_CHARS} ? html.length : html; })()`;

/** The error of a rendered page over RENDERED_HTML_MAX_CHARS. */
export function renderedTooLarge(chars: number): AppError {
  return new AppError('content_too_large', `the rendered page is ${chars} characters of HTML, over this service's limit of ${RENDERED_HTML_MAX_CHARS}`);
}

/** The name of the isolated world the DOM is read in. */
export const READ_WORLD = '__wds_read__';

async function viaSession(session: CDPSession): Promise<string> {
  const { frameTree } = await session.send('Page.getFrameTree');
  const { executionContextId } = await session.send('Page.createIsolatedWorld', { frameId: frameTree.frame.id, worldName: READ_WORLD });
  const { result, exceptionDetails } = await session.send('Runtime.evaluate', { expression: SERIALIZE_DOM, contextId: executionContextId, returnByValue: true });
  if (typeof result.value === 'number') throw renderedTooLarge(result.value);
  if (exceptionDetails || typeof result.value !== 'string') throw new Error(`reading the DOM failed: ${exceptionDetails?.text ?? typeof result.value}`);
  return result.value;
}

/** The page's DOM as HTML; `session` gives the page's CDP session (the render's own, or a new one). */
export async function readDom(page: Page, session: () => Promise<CDPSession>): Promise<string> {
  try {
    return await viaSession(await session());
  } catch (error) {
    if (hasCode(error, 'content_too_large')) throw error;
    return pageHtml(page);
  }
}

/** The page's DOM as HTML through Playwright (`page.content()`'s serializer, run by `page.evaluate`), within RENDERED_HTML_MAX_CHARS. */
export async function pageHtml(page: Page): Promise<string> {
  const html: unknown = await page.evaluate(SERIALIZE_DOM);
  if (typeof html === 'number') throw renderedTooLarge(html);
  if (typeof html !== 'string') throw new Error(`reading the DOM failed: ${typeof html}`);
  return html;
}
