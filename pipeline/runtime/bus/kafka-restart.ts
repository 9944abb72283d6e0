/**
 * Keeps a Kafka group member's consumer alive (kafka-member.ts). kafkajs restarts a consumer
 * after a retriable crash and leaves it dead after any other one (librdkafka's mock cluster
 * answers a follower's late SyncGroup with INVALID_REQUEST, for one). A member must not die
 * silently: this restarts it, with backoff, logging each crash and failed restart, for as
 * long as the member runs. A fetch resets the backoff.
 */
import type { Consumer, ConsumerRunConfig } from 'kafkajs';
import type { Logger } from '../log.js';
import { backoffDelay } from '../retry.js';

const RESTART_BACKOFF = { baseDelayMs: 500, maxDelayMs: 30_000 };

export function restartOnCrash(consumer: Consumer, runConfig: ConsumerRunConfig, isRunning: () => boolean, log: Logger): void {
  let restarts = 0;
  const restart = async (): Promise<void> => {
    if (!isRunning()) return;
    try {
      await consumer.connect();
      await consumer.run(runConfig);
    } catch (error) {
      const delayMs = backoffDelay(++restarts, RESTART_BACKOFF);
      log.error({ err: error, attempt: restarts }, `kafka consumer did not restart; trying again in ${delayMs} ms`);
      setTimeout(() => void restart(), delayMs);
    }
  };
  consumer.on(consumer.events.FETCH, () => {
    restarts = 0;
  });
  consumer.on(consumer.events.CRASH, ({ payload }) => {
    if (payload.restart) {
      log.warn({ err: payload.error }, 'kafka consumer crashed; kafkajs restarts it');
      return;
    }
    const delayMs = backoffDelay(++restarts, RESTART_BACKOFF);
    log.error({ err: payload.error, attempt: restarts }, `kafka consumer crashed; restarting it in ${delayMs} ms`);
    setTimeout(() => void restart(), delayMs);
  });
}
