/** actors/renderer/dom: reading a rendered page's DOM without Playwright's injected script. */
import { describe, expect, it } from 'vitest';
import { readDom, RENDERED_HTML_MAX_CHARS } from '../../actors/renderer/dom.js';
import { hasChromium, useRenderer } from '../helpers/renderer.js';

describe.skipIf(!hasChromium)('actors/renderer/dom', () => {
  const rig = useRenderer();

  it("reads the DOM as page.content() does, in a world of its own the page's scripts cannot change, and falls back to page.content()", async () => {
    const plain = '<!DOCTYPE html><html lang="en"><head><title>t</title></head><body><p id="a">one &amp; two</p><script>document.body.append("added")</script></body></html>';
    const tampering = '<!doctype html><html><body><p>real</p><script>Object.defineProperty(Element.prototype, "outerHTML", { get: () => "fake" }); XMLSerializer.prototype.serializeToString = () => "fake";</script></body></html>';
    await rig.open.withContext({}, async (context) => {
      const page = await context.newPage();
      await page.goto(`data:text/html,${encodeURIComponent(plain)}`);
      const html = await readDom(page, () => context.newCDPSession(page));
      expect(html).toContain('<!DOCTYPE html><html lang="en">');
      expect(html).toContain('</p><script>document.body.append("added")</script>added</body>');
      expect(html).toBe(await page.content());
      await page.goto(`data:text/html,${encodeURIComponent(tampering)}`);
      expect(await page.evaluate(() => document.documentElement.outerHTML)).toBe('fake');
      expect(await readDom(page, () => context.newCDPSession(page))).toMatch(/^<!DOCTYPE html><html><head><\/head><body><p>real<\/p>/);
      // No session: read by page.content().
      await page.goto(`data:text/html,${encodeURIComponent(plain)}`);
      expect(await readDom(page, () => Promise.reject(new Error('no session')))).toBe(await page.content());
    }, rig.signal);
  });

  it(`answers a page whose DOM is over ${RENDERED_HTML_MAX_CHARS} characters content_too_large, its HTML left in the page, with or without a session`, async () => {
    await rig.open.withContext({}, async (context) => {
      const page = await context.newPage();
      await page.goto(`data:text/html,${encodeURIComponent('<p>x</p>')}`);
      await page.evaluate((n) => void (document.body.textContent = 'x'.repeat(n)), RENDERED_HTML_MAX_CHARS);
      for (const session of [() => context.newCDPSession(page), () => Promise.reject(new Error('no session'))]) {
        const error = await readDom(page, session).then(() => null, (e: unknown) => e);
        expect(error).toMatchObject({ code: 'content_too_large', message: expect.stringMatching(/^the rendered page is \d+ characters of HTML, over this service's limit of 15728640$/) });
      }
    }, rig.signal);
  });
});
