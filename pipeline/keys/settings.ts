/**
 * The settings of API keys at start-up: the operator's own key (API_KEY) and the credits of
 * the first key created when there is none (main.ts prepareKeys).
 * This family's part of the one settings table: pipeline/service/settings.ts assembles the
 * parts, pipeline/runtime/config.ts parses them (`satisfies SettingsTable` checks each entry
 * here); README.md's "Configuration" lists them.
 */
import type { ConfigOf, SettingsTable } from '../runtime/config.js';

export const KEY_SETTINGS = {
  apiKey: {
    env: 'API_KEY',
    type: 'string',
    default: null,
    secret: true,
    minLength: 16,
    description:
      'When set, this key is made to exist at start with unlimited credits (single-user self-hosting, scripts). Minimum 16 characters.',
  },
  bootstrapKeyCredits: {
    env: 'BOOTSTRAP_KEY_CREDITS',
    type: 'credits',
    default: 'unlimited',
    description:
      'Credits of the key created on first start when no key exists and API_KEY is unset: a whole number or `unlimited`.',
  },
} as const satisfies SettingsTable;

/** The values of this part, as pipeline/runtime/config.ts parses them. */
export type KeysConfig = ConfigOf<typeof KEY_SETTINGS>;
