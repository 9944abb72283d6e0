/**
 * A command's options generated from its operation's own schemas (schemas/api/): one flag per
 * top-level field of the JSON body or query, under the field's name in kebab case
 * (`maxDepth` → `--max-depth`), typed by the field's schema, so the API's validation is the one
 * that applies and a field added to the contract is a flag at once. `--data` takes the
 * fields as JSON (or `@file`), for the nested ones; the flags win over it.
 *
 *   number, integer      --limit 10
 *   boolean              --ignore-sitemap, --no-ignore-sitemap (neither: the API's default)
 *   string, enum         --lang en
 *   array                repeatable; enum items also comma-separated (--formats markdown,links);
 *                        a value starting with `[` is a JSON array, with `{` a JSON object item
 *   object, other        JSON (--scrape-options '{"formats":["markdown"]}'); a string where the
 *                        schema also takes one (--webhook https://…)
 */
import { readFileSync } from 'node:fs';
import type { TSchema } from '@sinclair/typebox';
import { Option, type Command } from 'commander';
import { CliError, EXIT } from './client.js';

type Kind = 'number' | 'boolean' | 'string' | 'array' | 'json';

interface Field {
  readonly name: string;
  readonly kind: Kind;
  /** Array items that may be names (a format name, or a format object): a value may list names comma-separated. */
  readonly enumItems: boolean;
  readonly description: string;
}

type Schema = Record<string, unknown>;

function nonNull(schema: Schema): Schema {
  const anyOf = schema.anyOf as Schema[] | undefined;
  if (!anyOf) return schema;
  const rest = anyOf.filter((s) => s.type !== 'null');
  return rest.length === 1 ? (rest[0] as Schema) : { anyOf: rest };
}

function isNameSchema(schema: Schema): boolean {
  if (schema.type === 'string' && (Array.isArray(schema.enum) || 'const' in schema)) return true;
  const anyOf = schema.anyOf as Schema[] | undefined;
  return Array.isArray(anyOf) && anyOf.every(isNameSchema);
}

function kindOf(schema: Schema): Kind {
  if (schema.type === 'integer' || schema.type === 'number') return 'number';
  if (schema.type === 'boolean') return 'boolean';
  if (schema.type === 'string' || isNameSchema(schema)) return 'string';
  if (schema.type === 'array') return 'array';
  return 'json';
}

/** The first sentence of a field's description, as a flag's help line. */
function shortDescription(schema: Schema): string {
  const text = typeof schema.description === 'string' ? schema.description : '';
  const end = text.search(/\.(\s|$)/);
  return (end >= 0 ? text.slice(0, end + 1) : text).slice(0, 160);
}

/** The top-level fields of an object schema, minus those taken by positional arguments. */
export function fieldsOf(schema: TSchema | undefined, taken: readonly string[]): Field[] {
  const properties = ((schema as Schema | undefined)?.properties ?? {}) as Record<string, Schema>;
  return Object.entries(properties)
    .filter(([name]) => !taken.includes(name))
    .map(([name, raw]) => {
      const schema = nonNull(raw);
      const items = schema.type === 'array' ? nonNull((schema.items ?? {}) as Schema) : {};
      const names = isNameSchema(items) || ((items.anyOf as Schema[] | undefined) ?? []).some(isNameSchema);
      return { name, kind: kindOf(schema), enumItems: names, description: shortDescription(raw) || shortDescription(schema) };
    });
}

/** `maxDepth` → `max-depth`, `deduplicateSimilarURLs` → `deduplicate-similar-urls`, `watch_id` → `watch-id`. */
export const kebab = (name: string): string => name.replace(/([a-z0-9])([A-Z])/g, '$1-$2').replace(/_/g, '-').toLowerCase();

const bad = (message: string) => new CliError('bad_input', message, EXIT.badInput);

function parseJson(flag: string, value: string): unknown {
  try {
    return JSON.parse(value);
  } catch {
    throw bad(`${flag} takes JSON here; got ${JSON.stringify(value.slice(0, 80))}`);
  }
}

function parseValue(field: Field, flag: string, value: string): unknown {
  switch (field.kind) {
    case 'number': {
      const n = Number(value);
      if (value.trim() === '' || !Number.isFinite(n)) throw bad(`${flag} takes a number; got ${JSON.stringify(value)}`);
      return n;
    }
    case 'string':
      return value;
    case 'json':
      return /^\s*[[{"\d-]|^(true|false|null)$/.test(value) ? parseJson(flag, value) : value;
    default:
      return value;
  }
}

/** One array flag's value added to those before it. */
function addItems(field: Field, flag: string, value: string, previous: unknown[] = []): unknown[] {
  if (value.startsWith('[')) {
    const items = parseJson(flag, value);
    if (!Array.isArray(items)) throw bad(`${flag} takes a JSON array here`);
    return [...previous, ...items];
  }
  if (value.startsWith('{')) return [...previous, parseJson(flag, value)];
  if (field.enumItems) return [...previous, ...value.split(',').map((v) => v.trim()).filter((v) => v !== '')];
  return [...previous, value];
}

/** Adds a flag per field to `command`. */
export function addFieldOptions(command: Command, fields: readonly Field[]): void {
  for (const field of fields) {
    const flag = `--${kebab(field.name)}`;
    const description = field.description || `the \`${field.name}\` field`;
    if (field.kind === 'boolean') {
      command.addOption(new Option(flag, description));
      command.addOption(new Option(`--no-${kebab(field.name)}`, `\`${field.name}\`: false`).hideHelp());
    } else if (field.kind === 'array') {
      command.addOption(new Option(`${flag} <value>`, `${description} (repeatable)`).argParser((v: string, prev: unknown[] | undefined) => addItems(field, flag, v, prev)));
    } else {
      const placeholder = field.kind === 'number' ? '<n>' : field.kind === 'json' ? '<json>' : '<value>';
      command.addOption(new Option(`${flag} ${placeholder}`, description).argParser((v: string) => parseValue(field, flag, v)));
    }
  }
}

/** `--data`: JSON, or `@path` to a file of JSON. */
export function readData(value: string | undefined): Record<string, unknown> {
  if (value === undefined) return {};
  let text = value;
  if (value.startsWith('@')) {
    try {
      text = readFileSync(value.slice(1), 'utf8');
    } catch (error) {
      throw bad(`--data ${value}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  const data = parseJson('--data', text);
  if (typeof data !== 'object' || data === null || Array.isArray(data)) throw bad('--data takes a JSON object');
  return data as Record<string, unknown>;
}

/** The request's fields: `--data`, then the flags given (by field name) on top. */
export function fieldValues(fields: readonly Field[], opts: Record<string, unknown>, data: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...data };
  for (const field of fields) {
    // commander names an option by its flag in camel case: --max-depth → maxDepth, --watch-id → watchId.
    const key = kebab(field.name).replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
    if (opts[key] !== undefined) out[field.name] = opts[key];
  }
  return out;
}
