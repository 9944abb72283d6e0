/**
 * Screenshots, for the `screenshot` format and the `screenshot` action: returned as a
 * base64 data URL the caller can use directly (`data:image/png;base64,…`, or
 * `data:image/jpeg;base64,…` when `quality` is given), so a response is complete on its own
 * and nothing has to be served or expired later. `viewport` resizes the page first (and
 * stays for the rest of the render); `fullPage` captures the whole scrollable page.
 */
import type { Page } from 'playwright-core';
import type { ScrapeOptions } from '../../schemas/api/scrape-options.js';

export interface ScreenshotOptions {
  readonly fullPage?: boolean;
  readonly quality?: number;
  readonly viewport?: { readonly width: number; readonly height: number };
}

export async function screenshot(page: Page, options: ScreenshotOptions): Promise<string> {
  if (options.viewport) await page.setViewportSize({ width: options.viewport.width, height: options.viewport.height });
  const jpeg = options.quality !== undefined;
  const bytes = await page.screenshot({
    fullPage: options.fullPage ?? false,
    type: jpeg ? 'jpeg' : 'png',
    ...(jpeg ? { quality: options.quality } : {}),
    animations: 'disabled',
    caret: 'hide',
  });
  return `data:image/${jpeg ? 'jpeg' : 'png'};base64,${bytes.toString('base64')}`;
}

/** The `screenshot` format's options when it was asked for (string or object form); else null. */
export function screenshotFormat(options: ScrapeOptions): ScreenshotOptions | null {
  for (const format of options.formats ?? []) {
    if (format === 'screenshot') return {};
    if (typeof format === 'object' && format.type === 'screenshot') {
      return {
        ...(format.fullPage !== undefined ? { fullPage: format.fullPage } : {}),
        ...(format.quality !== undefined ? { quality: format.quality } : {}),
        ...(format.viewport ? { viewport: format.viewport } : {}),
      };
    }
  }
  return null;
}
