/**
 * One delivery of one message to a handler, shared by both buses. A handler that rejects is
 * logged and given the message again after a backoff (pipeline/runtime/retry.ts), for as long as the
 * member may keep the message; retries with meaning, backoff policy and dead letters are the
 * actor pool's job, so this backoff only keeps a buggy handler from spinning.
 *
 * The outcome says what the member may do: `handled` → commit the offset; `released` → the
 * member gave up the message uncommitted (stopping, lost the partition, or abandoned), so it
 * will be delivered again.
 */
import type { Logger } from '../log.js';
import { backoffDelay, sleep } from '../retry.js';
import type { BusMessage } from './bus.js';

export type DeliveryOutcome = 'handled' | 'released';

export interface DeliveryOptions {
  log: Logger;
  /** First redelivery backoff in ms; doubles up to `maxRedeliveryDelayMs`. */
  redeliveryDelayMs: number;
  maxRedeliveryDelayMs: number;
  /** Asked after a rejection: may this member try the message again? */
  mayRetry: () => boolean;
  /** Aborting it releases the message at once, even while the handler still runs. */
  abandoned: AbortSignal;
}

function abandonment(signal: AbortSignal): { promise: Promise<'abandoned'>; dispose: () => void } {
  let onAbort: () => void = () => {};
  const promise = new Promise<'abandoned'>((resolve) => {
    onAbort = () => resolve('abandoned');
    if (signal.aborted) resolve('abandoned');
    else signal.addEventListener('abort', onAbort, { once: true });
  });
  return { promise, dispose: () => signal.removeEventListener('abort', onAbort) };
}

export async function deliver(
  message: BusMessage,
  handler: (message: BusMessage) => Promise<void>,
  options: DeliveryOptions,
): Promise<DeliveryOutcome> {
  for (let attempt = 1; ; attempt++) {
    if (options.abandoned.aborted) return 'released';
    const abandoned = abandonment(options.abandoned);
    let result: 'ok' | 'abandoned' | { error: unknown };
    try {
      const running = Promise.resolve()
        .then(() => handler(message))
        .then(
          () => 'ok' as const,
          (error: unknown) => ({ error }),
        );
      result = await Promise.race([running, abandoned.promise]);
    } finally {
      abandoned.dispose();
    }
    if (result === 'ok') return 'handled';
    if (result === 'abandoned') return 'released';
    options.log.error(
      { err: result.error, topic: message.topic, partition: message.partition, offset: message.offset, attempt },
      'bus handler rejected; the message will be delivered again',
    );
    if (!options.mayRetry()) return 'released';
    const delayMs = backoffDelay(attempt, { baseDelayMs: options.redeliveryDelayMs, maxDelayMs: options.maxRedeliveryDelayMs });
    try {
      await sleep(delayMs, options.abandoned);
    } catch {
      return 'released';
    }
    if (!options.mayRetry()) return 'released';
  }
}
