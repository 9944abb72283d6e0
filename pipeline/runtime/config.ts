/**
 * The mechanism of configuration: `parseSettings` parses an environment once against a table
 * of settings (pipeline/runtime/settings.ts: the spec, and the runtime's own part), validates
 * every value and returns a frozen object; a bad value throws a ConfigError naming the
 * variable, and the process stops before it listens. The service's table is assembled from
 * the runtime's part and each family's by pipeline/service/settings.ts, and
 * pipeline/service/config.ts, the only file that reads `process.env`, hands it here.
 */
import { RUNTIME_SETTINGS, type SettingSpec, type SettingsTable } from './settings.js';

export { RUNTIME_SETTINGS, type SettingSpec, type SettingsTable };

type ValueOf<S extends SettingSpec> = S['type'] extends 'integer'
  ? S['default'] extends null
    ? number | null
    : number
  : S['type'] extends 'boolean'
    ? boolean
    : S['type'] extends 'credits'
      ? number | 'unlimited'
      : S['type'] extends 'urls'
        ? readonly string[] | null
        : S['type'] extends 'countryUrls'
          ? Readonly<Record<string, readonly string[]>> | null
          : S['default'] extends null
            ? string | null
            : string;

/** The parsed values of a table (or of one part of it): setting name → its value. */
export type ConfigOf<T extends SettingsTable> = { readonly [K in keyof T]: ValueOf<T[K]> };

/** The runtime's own settings, all the runtime reads (pipeline/runtime/runtime.ts). */
export type RuntimeConfig = ConfigOf<typeof RUNTIME_SETTINGS>;

/** An environment: variable name → value, unset variables absent or undefined. */
export type Environment = Readonly<Record<string, string | undefined>>;

export class ConfigError extends Error {
  readonly code = 'config_invalid';
  constructor(readonly env: string, message: string) {
    super(`${env}: ${message}`);
    this.name = 'ConfigError';
  }
}

/** `scheme://host:port`: what a message may say about a proxy URL (no user info, path or query). */
function shownUrl(url: URL): string {
  return `${url.protocol}//${url.host}`;
}

/** A URL as safe to print: the user info, when there is one, replaced by `***`. */
export function maskUrl(raw: string): string {
  try {
    const url = new URL(raw);
    if (!url.username && !url.password) return url.href;
    url.username = '***';
    url.password = '';
    return url.href;
  } catch {
    return '***';
  }
}

/** One proxy URL: http or https with a host. Messages never quote the value (it may hold a password). */
function proxyUrl(env: string, raw: string, where: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(env, `${where} is not a URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ConfigError(env, `${where} (${url.protocol}//…) must be an http:// or https:// proxy URL`);
  }
  if (!url.hostname) throw new ConfigError(env, `${where} has no host`);
  if ((url.pathname !== '/' && url.pathname !== '') || url.search || url.hash) {
    throw new ConfigError(env, `${where} (${shownUrl(url)}) must be scheme://[user:pass@]host:port with no path or query`);
  }
  return raw;
}

function urlList(env: string, raw: string, separator: string, where: string): readonly string[] {
  const items = raw.split(separator).map((item) => item.trim());
  return Object.freeze(
    items.map((item, i) => {
      const at = `${where}URL ${i + 1}`;
      if (!item) throw new ConfigError(env, `${at} is empty`);
      return proxyUrl(env, item, at);
    }),
  );
}

function countryUrls(env: string, raw: string): Readonly<Record<string, readonly string[]>> {
  const out: Record<string, readonly string[]> = {};
  raw.split(',').forEach((entry, i) => {
    const eq = entry.indexOf('=');
    const country = (eq < 0 ? entry : entry.slice(0, eq)).trim();
    if (eq < 0 || !/^[A-Za-z]{2}$/.test(country)) {
      throw new ConfigError(env, `entry ${i + 1} must be a two-letter country code, "=", then proxy URLs separated by "|" (e.g. us=http://host:8000)`);
    }
    const code = country.toUpperCase();
    if (out[code]) throw new ConfigError(env, `country ${code} is given twice`);
    out[code] = urlList(env, entry.slice(eq + 1), '|', `${code}: `);
  });
  return Object.freeze(out);
}

function parseValue(spec: SettingSpec, raw: string): string | number | boolean | object {
  switch (spec.type) {
    case 'integer': {
      if (!/^-?\d+$/.test(raw.trim())) throw new ConfigError(spec.env, `expected a whole number, got "${raw}"`);
      const n = Number(raw);
      if (spec.min !== undefined && n < spec.min) throw new ConfigError(spec.env, `must be >= ${spec.min}, got ${n}`);
      if (spec.max !== undefined && n > spec.max) throw new ConfigError(spec.env, `must be <= ${spec.max}, got ${n}`);
      return n;
    }
    case 'boolean': {
      const v = raw.trim().toLowerCase();
      if (['1', 'true', 'yes', 'on'].includes(v)) return true;
      if (['0', 'false', 'no', 'off', ''].includes(v)) return false;
      throw new ConfigError(spec.env, `expected true or false, got "${raw}"`);
    }
    case 'enum': {
      if (!spec.values?.includes(raw)) {
        throw new ConfigError(spec.env, `expected one of ${spec.values?.join(', ')}, got "${raw}"`);
      }
      return raw;
    }
    case 'credits': {
      if (raw === 'unlimited') return raw;
      if (!/^\d+$/.test(raw.trim())) throw new ConfigError(spec.env, `expected a whole number or "unlimited", got "${raw}"`);
      return Number(raw);
    }
    case 'urls':
      return urlList(spec.env, raw, ',', '');
    case 'countryUrls':
      return countryUrls(spec.env, raw);
    case 'string':
      if (spec.minLength !== undefined && raw.length < spec.minLength) throw new ConfigError(spec.env, `must be at least ${spec.minLength} characters`);
      return raw;
  }
}

/** Parses a table's settings from an environment. Throws ConfigError. */
export function parseSettings<T extends SettingsTable>(table: T, env: Environment): ConfigOf<T> {
  const out: Record<string, unknown> = {};
  for (const [name, spec] of Object.entries(table)) {
    const raw = env[spec.env];
    out[name] = raw === undefined || raw === '' ? spec.default : parseValue(spec, raw);
  }
  return Object.freeze(out) as ConfigOf<T>;
}

/** A table's values with secrets masked, safe to log: secret settings as `***`, proxy URLs without their user info. */
export function redactSettings<T extends SettingsTable>(table: T, config: ConfigOf<T>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, spec] of Object.entries(table)) {
    const value: unknown = config[name];
    if (spec.secret && value !== null) out[name] = '***';
    else if (spec.type === 'urls' && Array.isArray(value)) out[name] = value.map((v) => maskUrl(String(v)));
    else if (spec.type === 'countryUrls' && value !== null && typeof value === 'object') {
      out[name] = Object.fromEntries(Object.entries(value as Record<string, readonly string[]>).map(([cc, urls]) => [cc, urls.map(maskUrl)]));
    } else out[name] = value;
  }
  return out;
}
