/** actors/renderer/network: the `network` format, every request the page made. */
import { describe, expect, it } from 'vitest';
import { hasChromium, useRenderer } from '../helpers/renderer.js';

describe.skipIf(!hasChromium)('actors/renderer/network', () => {
  const rig = useRenderer();

  it('returns the network format: each request with method, type, status, size and timing', async () => {
    const { extras } = await rig.rendered(rig.site.url('/images'), { blockAssets: false, formats: ['network'] });
    const entries = extras.network as Record<string, any>[];
    const doc = entries.find((e) => e.url === rig.site.url('/images'));
    const img = entries.find((e) => e.url === rig.site.url('/pixel.png'));
    expect(doc).toMatchObject({ method: 'GET', resourceType: 'document', status: 200 });
    expect(doc?.size.body).toBeGreaterThan(100);
    expect(img).toMatchObject({ method: 'GET', resourceType: 'image', status: 200 });
    expect(img?.timing.startMs).toBeGreaterThanOrEqual(0);
    expect(img?.timing.durationMs).toBeGreaterThanOrEqual(0);
    const blocked = await rig.rendered(rig.site.url('/images'), { formats: ['network'] });
    expect((blocked.extras.network as Record<string, any>[]).find((e) => e.url === rig.site.url('/pixel.png'))).toMatchObject({ status: null, error: expect.any(String) });
  });
});
