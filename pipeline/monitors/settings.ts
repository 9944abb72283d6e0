/**
 * The settings of monitors (POST /v1/monitor …): how fast the frontier starts due checks and
 * how a check reads its pages. This family's part of the one settings table:
 * pipeline/service/settings.ts assembles the parts, pipeline/runtime/config.ts parses them
 * (`satisfies SettingsTable` checks each entry here); README.md's "Configuration" lists them.
 */
import type { ConfigOf, SettingsTable } from '../runtime/config.js';

export const MONITOR_SETTINGS = {
  monitorStartsPerSecond: {
    env: 'MONITOR_STARTS_PER_SECOND',
    type: 'integer',
    default: 50,
    min: 1,
    max: 10000,
    description:
      'Most monitor checks one frontier process starts a second. Checks due at the same moment (1,000 monitors created together, or every check missed while the service was down) start at this pace, oldest due first, instead of all at once.',
  },
  monitorPageTimeoutMs: {
    env: 'MONITOR_PAGE_TIMEOUT_MS',
    type: 'integer',
    default: 60000,
    min: 1000,
    max: 300000,
    description: "How long a check waits for one page (the scrape's `timeout`); a page that takes longer is that check's `error` result.",
  },
  monitorPageConcurrency: {
    env: 'MONITOR_PAGE_CONCURRENCY',
    type: 'integer',
    default: 5,
    min: 1,
    max: 50,
    description: 'Pages of one check read at the same time.',
  },
} as const satisfies SettingsTable;

/** The values of this part, as pipeline/runtime/config.ts parses them. */
export type MonitorsConfig = ConfigOf<typeof MONITOR_SETTINGS>;
