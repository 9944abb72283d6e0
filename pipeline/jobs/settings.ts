/**
 * The settings of crawl and batch jobs that the frontier applies: when a stalled job's pages
 * are sent again. How long a job is kept (JOB_RETENTION_HOURS) is the runtime's: the store
 * applies it at start-up as a TTL.
 * This family's part of the one settings table: pipeline/service/settings.ts assembles the
 * parts, pipeline/runtime/config.ts parses them (`satisfies SettingsTable` checks each entry
 * here); README.md's "Configuration" lists them.
 */
import type { ConfigOf, SettingsTable } from '../runtime/config.js';

export const JOB_SETTINGS = {
  jobStallMs: {
    env: 'JOB_STALL_MS',
    type: 'integer',
    default: 300000,
    min: 1000,
    description:
      "A running crawl or batch job none of whose pages has settled for this long is looked at by the frontier's watchdog: its pages still in flight after this long are sent to be fetched again (the process holding them died), more pages are scheduled and the job is completed if it is done. Longer than a page's `timeout` avoids fetching a slow page twice.",
  },
} as const satisfies SettingsTable;

/** The values of this part, as pipeline/runtime/config.ts parses them. */
export type JobsConfig = ConfigOf<typeof JOB_SETTINGS>;
