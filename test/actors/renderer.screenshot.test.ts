/** actors/renderer/screenshot: the `screenshot` format as a data URL. */
import { describe, expect, it } from 'vitest';
import { hasChromium, pngSize, useRenderer } from '../helpers/renderer.js';

describe.skipIf(!hasChromium)('actors/renderer/screenshot', () => {
  const rig = useRenderer();

  it('returns the screenshot format as a PNG data URL of the requested viewport, JPEG with quality, full page when asked', async () => {
    const viewport = await rig.rendered(rig.site.url('/js'), { formats: ['markdown', { type: 'screenshot', viewport: { width: 640, height: 480 } }] });
    expect(pngSize(viewport.extras.screenshot)).toEqual({ width: 640, height: 480 });
    const plain = await rig.rendered(rig.site.url('/js'), { formats: ['screenshot'] });
    expect(pngSize(plain.extras.screenshot)).toEqual({ width: 1280, height: 800 });
    const jpeg = await rig.rendered(rig.site.url('/js'), { formats: [{ type: 'screenshot', quality: 60 }] });
    expect(jpeg.extras.screenshot).toMatch(/^data:image\/jpeg;base64,\/9j\//);
    const full = await rig.rendered(rig.site.url('/scroll'), { formats: [{ type: 'screenshot', fullPage: true }] });
    const size = pngSize(full.extras.screenshot);
    expect(size.width).toBe(1280);
    expect(size.height).toBeGreaterThan(1900);
  });
});
