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
 * destroys the world), `page.content()` reads it as before.
 */
import type { CDPSession, Page } from 'playwright-core';

/** What Playwright's `documentContent` does without shadow roots: doctype + the root element. */
export const SERIALIZE_DOM =
  "(() => { let html = ''; if (document.doctype) html = new XMLSerializer().serializeToString(document.doctype); return document.documentElement ? html + document.documentElement.outerHTML : html; })()";

/** The name of the isolated world the DOM is read in. */
export const READ_WORLD = '__wds_read__';

async function viaSession(session: CDPSession): Promise<string> {
  const { frameTree } = await session.send('Page.getFrameTree');
  const { executionContextId } = await session.send('Page.createIsolatedWorld', { frameId: frameTree.frame.id, worldName: READ_WORLD });
  const { result, exceptionDetails } = await session.send('Runtime.evaluate', { expression: SERIALIZE_DOM, contextId: executionContextId, returnByValue: true });
  if (exceptionDetails || typeof result.value !== 'string') throw new Error(`reading the DOM failed: ${exceptionDetails?.text ?? typeof result.value}`);
  return result.value;
}

/** The page's DOM as HTML; `session` gives the page's CDP session (the render's own, or a new one). */
export async function readDom(page: Page, session: () => Promise<CDPSession>): Promise<string> {
  try {
    return await viaSession(await session());
  } catch {
    return page.content();
  }
}
