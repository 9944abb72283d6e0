/**
 * The suites that fix a calendar date (their clock, or dated data read against windows measured
 * from a clock). `.ci/run` runs them again with the system clock moved 40 and 400 days ahead
 * (test/clock-ahead/clock-ahead.c, an LD_PRELOAD that moves native code's wall clock too:
 * chdb, Chromium), so a window measured
 * from the real clock instead of the injected one fails in CI the day it is written, not weeks
 * later. test/clock.test.ts keeps this list whole: a suite that fixes a date and is not here
 * fails it.
 */
export const DATED_SUITES: readonly string[] = [
  'test/intel/history.test.ts',
  'test/intel/links.store.test.ts',
  'test/intel/links.test.ts',
  'test/intel/rules.test.ts',
  'test/monitors/monitors.test.ts',
  'test/monitors/watches.test.ts',
  'test/pipeline/changes.store.test.ts',
  'test/pipeline/changes.test.ts',
  'test/pipeline/clients.feeds.test.ts',
  'test/pipeline/clients.github.test.ts',
  'test/pipeline/clients.hackernews.test.ts',
  'test/pipeline/clients.models.schema.test.ts',
  'test/pipeline/clients.reddit-bluesky.test.ts',
  'test/pipeline/clients.social-reads.test.ts',
  'test/pipeline/keys.shared.test.ts',
  'test/pipeline/leads.record.test.ts',
  'test/pipeline/mentions-web.test.ts',
  'test/search/local-index.test.ts',
  // Dated page text and posts dated from the clock, through the whole service.
  'test/e2e/monitors.test.ts',
  'test/e2e/mentions.test.ts',
];

/** `node -e` entry for .ci/run: the list, one path a line. */
if (process.argv[1]?.endsWith('dated-suites.ts') && process.argv.includes('--list')) process.stdout.write(`${DATED_SUITES.join('\n')}\n`);
