/**
 * A fix to kafkajs 2.2.4's request queue (kafkajs issues #1556 and #1704, pull requests #1667
 * and #1768, none released): `RequestQueue.scheduleCheckPendingRequests` arms a timer after
 * every check even when nothing is pending and the connection is not throttled, and with
 * `throttledUntil` at its initial -1 the delay is negative, so Node runs it after 1 ms: every
 * broker connection of a process (a consumer's fetch and coordinator connections, the
 * producer's, the admin client's) wakes the event loop about a thousand times a second for as
 * long as it is open, busy or idle. That loop was most of an idle service process's CPU in
 * distributed mode (bench/README.md "Scaling apart").
 *
 * The replacement keeps every case where the queue has something to wait for: pending
 * requests are checked again after the throttle ends (or after kafkajs's 10 ms when not
 * throttled), and a throttle still in force is waited out. With nothing pending and no
 * throttle there is nothing to check: `push()` sends a request at once when it can and arms
 * the timer itself when it cannot, and every answered request runs the check again
 * (`fulfillRequest`), as kafkajs's own comment in the method says.
 *
 * Applied once per process when the Kafka bus is loaded (kafka.ts). When the installed kafkajs
 * no longer has the method, or its source no longer has the bug's shape, nothing is replaced
 * (`kafkaIdlePatch()` says which).
 */
import { createRequire } from 'node:module';

/** The fields of kafkajs's RequestQueue (src/network/requestQueue/index.js) the fix reads. */
interface RequestQueueLike {
  throttledUntil: number;
  throttleCheckTimeoutId: ReturnType<typeof setTimeout> | null;
  pending: unknown[];
  checkPendingRequests(): void;
  scheduleCheckPendingRequests(): void;
}

/** kafkajs's CHECK_PENDING_REQUESTS_INTERVAL: how soon pending requests are looked at again. */
const CHECK_PENDING_REQUESTS_INTERVAL_MS = 10;

/** The 2.2.4 source of the method always reaches setTimeout, pending or not. */
const BUGGY_SHAPE = /if \(this\.pending\.length > 0\) \{\s*scheduleAt = scheduleAt > 0 \? scheduleAt : CHECK_PENDING_REQUESTS_INTERVAL\s*\}\s*this\.throttleCheckTimeoutId = setTimeout/;

export type KafkaIdlePatch = 'applied' | 'not-needed' | 'not-found';

let outcome: KafkaIdlePatch | null = null;

function scheduleCheckPendingRequests(this: RequestQueueLike): void {
  if (this.throttleCheckTimeoutId) return;
  const untilUnthrottled = this.throttledUntil - Date.now();
  let delayMs: number;
  if (this.pending.length > 0) delayMs = untilUnthrottled > 0 ? untilUnthrottled : CHECK_PENDING_REQUESTS_INTERVAL_MS;
  else if (untilUnthrottled > 0) delayMs = untilUnthrottled;
  else return;
  this.throttleCheckTimeoutId = setTimeout(() => {
    this.throttleCheckTimeoutId = null;
    this.checkPendingRequests();
  }, delayMs);
}

/** Replaces kafkajs's method when it has the bug (idempotent); says what it did. */
export function kafkaIdlePatch(): KafkaIdlePatch {
  if (outcome) return outcome;
  const require = createRequire(import.meta.url);
  let RequestQueue: { prototype: RequestQueueLike } | undefined;
  try {
    RequestQueue = require('kafkajs/src/network/requestQueue/index.js') as { prototype: RequestQueueLike };
  } catch {
    RequestQueue = undefined;
  }
  const original = RequestQueue?.prototype.scheduleCheckPendingRequests;
  if (!RequestQueue || typeof original !== 'function') outcome = 'not-found';
  else if (!BUGGY_SHAPE.test(original.toString())) outcome = 'not-needed';
  else {
    RequestQueue.prototype.scheduleCheckPendingRequests = scheduleCheckPendingRequests;
    outcome = 'applied';
  }
  return outcome;
}
