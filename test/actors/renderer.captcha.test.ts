/** actors/renderer/captcha: `captchaHandling: auto`, a challenge checkbox clicked once. */
import { describe, expect, it } from 'vitest';
import { hasChromium, pngSize, useRenderer } from '../helpers/renderer.js';

describe.skipIf(!hasChromium)('actors/renderer/captcha', () => {
  const rig = useRenderer();

  it('clicks a challenge checkbox once by itself and returns before/after evidence', async () => {
    const { html, extras } = await rig.rendered(rig.site.url('/challenge'), { waitFor: 1, captchaEvidence: true });
    expect(html).toContain('Challenge passed');
    expect(extras.captcha).toMatchObject({ clicked: true, solved: true });
    expect(pngSize(extras.captcha.evidence.before)).toEqual({ width: 1280, height: 800 });
    expect(extras.captcha.evidence.after).not.toBe(extras.captcha.evidence.before);
    const off = await rig.rendered(rig.site.url('/challenge'), { waitFor: 1, captchaHandling: 'off' });
    expect(off.html).not.toContain('Challenge passed');
    expect(off.extras.captcha).toBeUndefined();
  });
});
