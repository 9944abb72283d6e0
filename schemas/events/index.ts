/**
 * The event contracts: one Avro schema per event type and version, in
 * schemas/events/<EventName>/v<N>.avsc, the only definition of each event. README.md here has
 * the evolution rules and the two wire framings; pipeline/runtime/codec/ compiles and uses them.
 *
 * `EVENTS` is read from the .avsc files when this module loads (synchronously, from the
 * package root, so it works from dist/ too). The TypeScript types come from
 * types.generated.ts (`npm run gen:events`); loading fails when the folders on disk and that
 * file disagree on the event names or current versions, so a stale build stops at start-up.
 */
import { CURRENT_VERSIONS, EVENT_NAMES, type EventName, type EventValues } from './types.generated.js';
import { EventSchemaError, loadEventDefinitions, type EventDefinition } from './load.js';

export { CURRENT_VERSIONS, EVENT_NAMES };
export { EVENT_NAMESPACE, EventSchemaError } from './load.js';
export type { EventName, EventValues };
export type { AvroField, AvroSchema, EventDefinition, EventRecordSchema, EventSchemaVersion } from './load.js';

/** The value of an event of type `N`, as written and as read (always the current version). */
export type EventValue<N extends EventName> = EventValues[N];

function checkAgainstGenerated(loaded: Record<string, EventDefinition>): Readonly<Record<EventName, EventDefinition>> {
  const onDisk = Object.keys(loaded).sort();
  const generated = [...EVENT_NAMES].sort();
  const stale = onDisk.join() !== generated.join() || EVENT_NAMES.some((n) => loaded[n]?.current.version !== CURRENT_VERSIONS[n]);
  if (stale) {
    const versions = (get: (n: string) => number | undefined, names: string[]) => names.map((n) => `${n} v${get(n)}`).join(', ');
    throw new EventSchemaError(
      'schemas/events/types.generated.ts is stale: run `npm run gen:events`. ' +
        `On disk: ${versions((n) => loaded[n]?.current.version, onDisk)}; ` +
        `generated: ${versions((n) => CURRENT_VERSIONS[n as EventName], generated)}.`,
    );
  }
  return loaded as Record<EventName, EventDefinition>;
}

/** Every event type with its current schema and all its versions, oldest first. */
export const EVENTS: Readonly<Record<EventName, EventDefinition>> = Object.freeze(checkAgainstGenerated(loadEventDefinitions()));
