/**
 * Renders the event types from the current version of every event schema, as avsc reads and
 * writes the values: schemas/events/types.generated.ts holds the `EventName` union, the current
 * version numbers and `EventValues`; each event's interface is its own file beside its schemas,
 * schemas/events/<EventName>/types.generated.ts.
 *
 * Avro → TypeScript: null → null; boolean; int, long, float, double → number (a `long` is
 * read as a JS number, so values must stay within ±(2^53 − 2); avsc refuses larger ones rather
 * than lose precision: the events hold epoch milliseconds and counters); bytes and fixed →
 * Buffer; string → string; enum → its symbols; array → T[]; map → Record<string, T>;
 * ["null", T] → T | null; record → an inline object type. Other unions are refused: avsc
 * would read them in a shape this generator does not describe.
 */
import type { AvroField, AvroSchema, EventDefinition } from '../../schemas/events/load.js';

export const GENERATED_TYPES_PATH = 'schemas/events/types.generated.ts';

/** Where an event's own interface is written, beside its `v<N>.avsc` files. */
export const eventTypesPath = (event: string): string => `schemas/events/${event}/types.generated.ts`;
export const GENERATE_COMMAND = 'npm run gen:events';

const PRIMITIVES: Readonly<Record<string, string>> = {
  null: 'null',
  boolean: 'boolean',
  int: 'number',
  long: 'number',
  float: 'number',
  double: 'number',
  bytes: 'Buffer',
  string: 'string',
};

type Context = { event: string; path: string; indent: string };

function unsupported(ctx: Context, what: string): never {
  throw new Error(`${ctx.event}.${ctx.path}: ${what} is not supported by ${GENERATE_COMMAND}; extend infra/codegen/generate-types.ts`);
}

function docComment(doc: unknown, indent: string): string {
  if (typeof doc !== 'string' || doc.trim() === '') return '';
  return `${indent}/** ${doc.replace(/\*\//g, '*\\/').replace(/\s*\n\s*/g, ' ')} */\n`;
}

function renderFields(fields: readonly AvroField[], ctx: Context): string {
  return fields
    .map((f) => {
      const type = renderType(f.type, { ...ctx, path: `${ctx.path ? `${ctx.path}.` : ''}${f.name}`, indent: `${ctx.indent}  ` });
      return `${docComment(f.doc, `${ctx.indent}  `)}${ctx.indent}  ${f.name}: ${type};\n`;
    })
    .join('');
}

function renderType(schema: AvroSchema, ctx: Context): string {
  if (typeof schema === 'string') return PRIMITIVES[schema] ?? unsupported(ctx, `the named type reference "${schema}"`);
  if (Array.isArray(schema)) {
    const others = schema.filter((s) => s !== 'null');
    if (others.length !== 1 || others.length === schema.length) unsupported(ctx, `the union ${JSON.stringify(schema)}`);
    return `${renderType(others[0] as AvroSchema, ctx)} | null`;
  }
  const s = schema as Record<string, unknown>;
  switch (s.type) {
    case 'enum':
      return (s.symbols as string[]).map((x) => JSON.stringify(x)).join(' | ');
    case 'fixed':
      return 'Buffer';
    case 'array':
      return `Array<${renderType(s.items as AvroSchema, ctx)}>`;
    case 'map':
      return `Record<string, ${renderType(s.values as AvroSchema, ctx)}>`;
    case 'record':
      return `{\n${renderFields(s.fields as AvroField[], ctx)}${ctx.indent}}`;
    default:
      return renderType(s.type as AvroSchema, ctx);
  }
}

const HEADER = [
  '// GENERATED FILE, DO NOT EDIT.',
  `// Written by \`${GENERATE_COMMAND}\` (infra/codegen/gen-events.ts) from the newest`,
  '// schemas/events/<EventName>/v<N>.avsc of each event. test/pipeline/codec.contracts.test.ts',
  '// fails when this file differs from what the generator produces now.',
];

/** One event's interface file. */
function renderEvent(e: EventDefinition): string {
  const schema = e.current.schema;
  const doc = [schema.doc, `${schema.namespace}.${schema.name} v${e.current.version} (${e.current.file}).`].filter(Boolean).join(' ');
  return [
    ...HEADER,
    '// Avro long → number (values must stay within ±(2^53 − 2): avsc refuses larger ones rather than',
    '// lose precision), bytes → Buffer, ["null", T] → T | null.',
    '',
    `${docComment(doc, '')}export interface ${e.name} {`,
    renderFields(schema.fields, { event: e.name, path: '', indent: '' }).trimEnd(),
    '}',
    '',
  ].join('\n');
}

/**
 * Every generated file for these definitions (sorted by event name), by path from the package
 * root: the index (GENERATED_TYPES_PATH) and one interface file per event (`eventTypesPath`).
 */
export function renderEventTypes(definitions: Readonly<Record<string, EventDefinition>>): Record<string, string> {
  const events = Object.values(definitions).sort((a, b) => (a.name < b.name ? -1 : 1));
  const index = [
    ...HEADER,
    '',
    ...events.map((e) => `import type { ${e.name} } from './${e.name}/types.generated.js';`),
    '',
    `export type { ${events.map((e) => e.name).join(', ')} };`,
    '',
    '/** Every event type, one per folder in schemas/events/. */',
    `export const EVENT_NAMES = [${events.map((e) => `'${e.name}'`).join(', ')}] as const;`,
    '',
    'export type EventName = (typeof EVENT_NAMES)[number];',
    '',
    '/** The newest schema version of each event: what is written, and what every version is read as. */',
    'export const CURRENT_VERSIONS = {',
    ...events.map((e) => `  ${e.name}: ${e.current.version},`),
    '} as const satisfies Record<EventName, number>;',
    '',
    '/** Event name → the value of its current version. */',
    'export interface EventValues {',
    ...events.map((e) => `  ${e.name}: ${e.name};`),
    '}',
    '',
  ].join('\n');
  return { [GENERATED_TYPES_PATH]: index, ...Object.fromEntries(events.map((e) => [eventTypesPath(e.name), renderEvent(e)])) };
}
