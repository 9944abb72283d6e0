/**
 * The map's page worker: the module each worker thread of the frontier's page reader runs
 * (page-links-pool.ts, on pipeline/runtime/workers.ts). Each task is one page's markup read
 * into its title, description and links (page-links.ts `readPage`). Imported on the main thread
 * only for its own URL (`PAGE_LINKS_WORKER`): there `serveTasks` does nothing.
 */
import { serveTasks } from '../../pipeline/runtime/workers.js';
import { readPage, type PageFacts } from './page-links.js';

/** The pool's name, which the worker answers to. */
export const PAGE_LINKS_POOL_NAME = 'map-pages';

/** This module, the worker threads' entry. */
export const PAGE_LINKS_WORKER = new URL(import.meta.url);

/** One page to read: its markup and the URL it was fetched from after redirects. */
export interface PageLinksTask {
  readonly html: string;
  readonly finalUrl: string;
}

serveTasks<PageLinksTask, PageFacts>(PAGE_LINKS_POOL_NAME, (task) => Promise.resolve(readPage(task.html, task.finalUrl)));
