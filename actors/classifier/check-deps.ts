/**
 * What a monitor check is given (check.ts and the parts it is made of, check-pages.ts and
 * check-rows.ts): the event, the classifier's dependencies, and what it needs of its monitor.
 */
import type { KeyRegistry } from '../../pipeline/keys/registry.js';
import type { MonitorRecord } from '../../pipeline/monitors/record.js';
import type { Logger } from '../../pipeline/runtime/log.js';
import type { Requester } from '../../pipeline/runtime/request-reply.js';
import type { State } from '../../pipeline/runtime/state/state.js';
import type { BatchWriter } from '../../pipeline/runtime/store/batch-writer.js';
import type { Store } from '../../pipeline/runtime/store/store.js';
import type { EventValue } from '../../schemas/events/index.js';

export type MonitorCheckRequested = EventValue<'MonitorCheckRequested'>;

export interface CheckDeps {
  readonly state: State;
  readonly store: Pick<Store, 'query'>;
  readonly writer: Pick<BatchWriter, 'write'>;
  readonly keys: KeyRegistry;
  /** Asks the scrape path for one page (started lazily by the actor). */
  readonly requester: () => Promise<Requester>;
  readonly pageTimeoutMs: number;
  readonly pageConcurrency: number;
  readonly log: Logger;
  readonly now?: () => number;
}

/** What a check needs of its monitor. */
export type CheckMonitor = Pick<MonitorRecord, 'id' | 'tenant' | 'name' | 'goal' | 'sealedWebhook'>;
