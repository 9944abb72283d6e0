/**
 * Start-up reachability: before the Kafka bus builds its producer it checks that a broker
 * answers, retrying with exponential backoff and jitter (pipeline/runtime/retry.ts) and one warn line
 * per failed attempt ("kafka broker unreachable at …, retrying in … ms"). When
 * `connectTimeoutMs` has passed it rejects with AppError `bus_unavailable`, whose cause is
 * the last failure — a process that cannot reach Kafka fails start-up once, clearly, instead
 * of crash-looping. The bound is `connectTimeoutMs` plus at most one attempt
 * (`connectionTimeoutMs`).
 */
import kafkajs from 'kafkajs';
import { AppError } from '../errors.js';
import type { Logger } from '../log.js';
import { backoffDelay, sleep } from '../retry.js';

const { Kafka, logLevel } = kafkajs;

export interface ReachOptions {
  brokers: readonly string[];
  clientId: string;
  log: Logger;
  connectTimeoutMs: number;
  connectRetryDelayMs: number;
  maxConnectRetryDelayMs: number;
  connectionTimeoutMs: number;
}

function reason(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

export async function reachBroker(options: ReachOptions): Promise<void> {
  const where = options.brokers.join(',');
  const deadline = Date.now() + options.connectTimeoutMs;
  // A throwaway client without kafkajs's own retries or logging: each attempt is one try.
  const probe = new Kafka({
    clientId: `${options.clientId}-probe`,
    brokers: [...options.brokers],
    connectionTimeout: options.connectionTimeoutMs,
    retry: { retries: 0 },
    logLevel: logLevel.NOTHING,
  });
  for (let attempt = 1; ; attempt++) {
    const admin = probe.admin({ retry: { retries: 0 } });
    try {
      await admin.connect();
      await admin.disconnect();
      if (attempt > 1) options.log.info({ brokers: where, attempt }, 'kafka broker reachable');
      return;
    } catch (error) {
      await admin.disconnect().catch(() => undefined);
      const left = deadline - Date.now();
      if (left <= 0) {
        throw new AppError('bus_unavailable', `kafka broker unreachable at ${where} for ${options.connectTimeoutMs} ms: ${reason(error)}`, {
          cause: error,
        });
      }
      const delayMs = Math.max(
        1,
        Math.min(left, backoffDelay(attempt, { baseDelayMs: options.connectRetryDelayMs, maxDelayMs: options.maxConnectRetryDelayMs })),
      );
      options.log.warn({ brokers: where, attempt, err: reason(error) }, `kafka broker unreachable at ${where}, retrying in ${delayMs} ms`);
      await sleep(delayMs);
    }
  }
}
