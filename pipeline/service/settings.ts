/**
 * The one settings table of the service, assembled from its parts: the runtime's own
 * (pipeline/runtime/settings.ts) and each family's, declared beside the family's rules. A new
 * family adds its part here; nothing else in the mechanism changes. A name declared by two
 * parts would silently keep the later one, so test/pipeline/config.test.ts counts them.
 */
import { RUNTIME_SETTINGS, type SettingsTable } from '../runtime/settings.js';
import { MODEL_SETTINGS } from '../clients/models/settings.js';
import { INTEL_SETTINGS } from '../intel/settings.js';
import { JOB_SETTINGS } from '../jobs/settings.js';
import { KEY_SETTINGS } from '../keys/settings.js';
import { LEADS_SETTINGS } from '../leads/settings.js';
import { MENTION_SETTINGS } from '../mentions/settings.js';
import { MONITOR_SETTINGS } from '../monitors/settings.js';
import { DOCUMENT_SETTINGS } from '../pages/settings.js';
import { SEARCH_SETTINGS } from '../search/settings.js';
import { WEBHOOK_SETTINGS } from '../webhooks/settings.js';

/** Each part by its owner, in the order the table lists them. */
export const SETTINGS_PARTS = {
  runtime: RUNTIME_SETTINGS,
  keys: KEY_SETTINGS,
  documents: DOCUMENT_SETTINGS,
  jobs: JOB_SETTINGS,
  webhooks: WEBHOOK_SETTINGS,
  models: MODEL_SETTINGS,
  search: SEARCH_SETTINGS,
  monitors: MONITOR_SETTINGS,
  mentions: MENTION_SETTINGS,
  intel: INTEL_SETTINGS,
  leads: LEADS_SETTINGS,
} as const satisfies Readonly<Record<string, SettingsTable>>;

export const SETTINGS = {
  ...SETTINGS_PARTS.runtime,
  ...SETTINGS_PARTS.keys,
  ...SETTINGS_PARTS.documents,
  ...SETTINGS_PARTS.jobs,
  ...SETTINGS_PARTS.webhooks,
  ...SETTINGS_PARTS.models,
  ...SETTINGS_PARTS.search,
  ...SETTINGS_PARTS.monitors,
  ...SETTINGS_PARTS.mentions,
  ...SETTINGS_PARTS.intel,
  ...SETTINGS_PARTS.leads,
} as const satisfies SettingsTable;
