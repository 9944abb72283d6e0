/**
 * pipeline/pages/rendering.ts: which fetched pages hold a challenge the renderer would click
 * (`challengeFrameIn`, `needsChallengeRender`) and what an escalated render costs.
 */
import { describe, expect, it } from 'vitest';
import { challengeFrameIn, needsChallengeRender, renderCredits } from '../../pipeline/pages/rendering.js';
import { PRICES, SOURCE_CREDITS } from '../../schemas/api/prices.js';

const BROWSER_PAGE_CREDITS = PRICES.browserPage.credits;

const HTML = 'text/html; charset=utf-8';
const body = (html: string) => Buffer.from(html, 'utf8');
const CHALLENGE = '<!doctype html><html><body><main><h1>Checking your browser</h1><iframe src="/challenge/frame" title="challenge"></iframe></main></body></html>';

describe('pipeline/pages/rendering', () => {
  it('finds a challenge frame by its src or, case-insensitively, its title', () => {
    expect(challengeFrameIn(HTML, body(CHALLENGE))).toBe(true);
    expect(challengeFrameIn(HTML, body('<p>x</p><IFRAME src="https://cdn.example/widget" title="Security CHALLENGE"></IFRAME>'))).toBe(true);
    expect(challengeFrameIn('application/xhtml+xml', body('<iframe src="https://x.example/turnstile/challenge?v=2"></iframe>'))).toBe(true);
  });

  it('finds none in pages without such a frame', () => {
    // An iframe that is not a challenge; the word outside any frame; a frame shown as text.
    expect(challengeFrameIn(HTML, body('<iframe src="https://www.youtube.com/embed/x" title="video"></iframe>'))).toBe(false);
    expect(challengeFrameIn(HTML, body('<iframe src="/video"></iframe><h1>The challenge of scaling</h1>'))).toBe(false);
    expect(challengeFrameIn(HTML, body('<pre>&lt;iframe src="/challenge"&gt;&lt;/iframe&gt;</pre>'))).toBe(false);
    expect(challengeFrameIn(HTML, body('<!-- <iframe src="/challenge"></iframe> --><p>hi</p>'))).toBe(false);
    expect(challengeFrameIn(HTML, body('<p>no frames at all</p>'))).toBe(false);
  });

  it('looks only at HTML', () => {
    expect(challengeFrameIn('application/json', body(JSON.stringify({ html: CHALLENGE })))).toBe(false);
    expect(challengeFrameIn('text/plain', body(CHALLENGE))).toBe(false);
    expect(challengeFrameIn(null, body(CHALLENGE))).toBe(false);
  });

  it('renders a challenge page for a synchronous scrape with captchaHandling auto (the default) only', () => {
    const page = { contentType: HTML, body: body(CHALLENGE) };
    const sync = { jobId: null, escalated: false };
    expect(needsChallengeRender(sync, {}, page)).toBe(true);
    expect(needsChallengeRender(sync, { captchaHandling: 'auto' }, page)).toBe(true);
    expect(needsChallengeRender(sync, { captchaHandling: 'off' }, page)).toBe(false);
    // Job pages take no browser options yet; a request already escalated is not sent twice.
    expect(needsChallengeRender({ jobId: 'job-1', escalated: false }, {}, page)).toBe(false);
    expect(needsChallengeRender({ jobId: null, escalated: true }, {}, page)).toBe(false);
    expect(needsChallengeRender(sync, {}, { contentType: HTML, body: body('<p>plain</p>') })).toBe(false);
  });

  it('charges an escalated render as a fetched page and any other render as a browser page', () => {
    expect(renderCredits({ escalated: true })).toBe(SOURCE_CREDITS.fresh);
    expect(renderCredits({ escalated: false })).toBe(BROWSER_PAGE_CREDITS);
  });
});
