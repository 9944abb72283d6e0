/**
 * The service's configuration: the assembled settings table (./settings.ts) parsed once by the
 * runtime's mechanism (pipeline/runtime/config.ts). This is the only file that reads
 * `process.env` (test/architecture.test.ts checks it); everything else is handed the frozen
 * result, or the part of it it needs.
 */
import { parseSettings, redactSettings, type ConfigOf, type Environment } from '../runtime/config.js';
import type { Runtime } from '../runtime/runtime.js';
import { dnsServersOf } from '../intel/settings.js';
import { SETTINGS } from './settings.js';

export { ConfigError, maskUrl } from '../runtime/config.js';
export { SETTINGS };

/** Every setting's value: the runtime's and every family's. */
export type Config = ConfigOf<typeof SETTINGS>;

/** The runtime of a process of this service, carrying the whole config for its pools and gateway. */
export type ServiceRuntime = Runtime<Config>;

/**
 * Parses the settings from an environment (default: the process's), then the values a
 * family reads further (DNS_SERVERS' entries), so a bad one stops the start here too.
 * Throws ConfigError.
 */
export function loadConfig(env: Environment = process.env): Config {
  const config = parseSettings(SETTINGS, env);
  dnsServersOf(config);
  return config;
}

/** The config with secrets masked, safe to log: secret settings as `***`, proxy URLs without their user info. */
export function redactedConfig(config: Config): Record<string, unknown> {
  return redactSettings(SETTINGS, config);
}

/**
 * What `web-data-service mcp` (gateway/mcp/stdio.ts) reads of its environment: its own two
 * settings, which are a client's and not the service's (WDS_URL, the running service to call;
 * WDS_API_KEY, the key to call it with; docs/mcp.md), and the environment itself, which it
 * passes on to the embedded service it starts (whose settings loadConfig reads there).
 */
export interface McpCommandEnvironment {
  readonly url: string | undefined;
  readonly apiKey: string | undefined;
  readonly env: Environment;
}

export function mcpCommandEnvironment(env: Environment = process.env): McpCommandEnvironment {
  return { url: env.WDS_URL || undefined, apiKey: env.WDS_API_KEY || undefined, env };
}
