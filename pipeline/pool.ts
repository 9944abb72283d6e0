/**
 * The actor pool: runs one actor's pure handler over the events of its topics, as one member
 * of the actor's consumer group. The bus gives at-least-once delivery and backpressure
 * (`concurrency` handlers at most); the pool adds what every actor needs:
 *
 * Lifecycle of one message:
 * 1. decode (a payload sent by reference is fetched first); undecodable → dead-letter at once;
 * 2. run the handler with a per-attempt timeout; the handler returns an Outcome:
 *    - `ack`: publish its emissions, then the message counts as done (the bus commits it);
 *    - `retry`: a transient failure — back off (exponential, jittered) and run it again, up to
 *      `attempts` in all, then dead-letter;
 *    - `dead`: a permanent failure — dead-letter now.
 *    A handler that throws is treated as `retry` when the error's code is retriable (per
 *    schemas/errors.ts), else `dead`;
 * 3. dead-lettering publishes the original bytes and headers to the dead-letter topic with the
 *    error code, message, attempt count, source topic and group, and then counts as done, so a
 *    poison event never blocks its partition for longer than its retries.
 * Emissions are published before the message is done: a crash in between re-runs the handler
 * and emits again, so downstream handlers must be idempotent.
 */
import { ERRORS, isErrorCode, type ErrorCode } from '../schemas/errors.js';
import { HEADERS, TOPICS, type TopicKey } from '../schemas/topics.js';
import type { BusMessage, Subscription } from './bus/bus.js';
import type { DecodedEvent } from './codec/codec.js';
import type { Emission, Events } from './events.js';
import type { Logger } from './log.js';
import { backoffDelay, retry, sleep } from './retry.js';

export type Outcome =
  | { readonly kind: 'ack'; readonly emit?: readonly Emission[] }
  | { readonly kind: 'retry'; readonly code: ErrorCode; readonly message: string }
  | { readonly kind: 'dead'; readonly code: ErrorCode; readonly message: string };

export interface ActorContext {
  readonly log: Logger;
  /** Aborted when the attempt times out or the pool stops. */
  readonly signal: AbortSignal;
  /** 1-based attempt number. */
  readonly attempt: number;
  readonly message: BusMessage;
}

export type ActorHandler = (event: DecodedEvent, ctx: ActorContext) => Promise<Outcome>;

export interface ActorDefinition {
  /** Actor (role) name, used in logs. */
  readonly name: string;
  /** Consumer group; every process of this actor joins it. */
  readonly group: string;
  readonly topics: readonly TopicKey[];
  readonly concurrency: number;
  /** Time allowed for one attempt. */
  readonly timeoutMs: number;
  readonly handler: ActorHandler;
}

export interface PoolRetry {
  attempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
}

export const DEFAULT_POOL_RETRY: PoolRetry = { attempts: 4, baseDelayMs: 200, maxDelayMs: 5000 };

function failureOf(error: unknown): { code: ErrorCode; message: string } {
  const code = (error as { code?: unknown })?.code;
  const message = error instanceof Error ? error.message : String(error);
  return { code: typeof code === 'string' && isErrorCode(code) ? code : 'internal_error', message };
}

export class ActorPool {
  private subscription: Subscription | null = null;
  private readonly stopping = new AbortController();
  private readonly log: Logger;

  constructor(
    private readonly def: ActorDefinition,
    private readonly events: Events,
    log: Logger,
    private readonly retryPolicy: PoolRetry = DEFAULT_POOL_RETRY,
  ) {
    this.log = log.child({ actor: def.name });
  }

  async start(): Promise<void> {
    this.subscription = await this.events.bus.consume({
      group: this.def.group,
      topics: this.def.topics.map((t) => TOPICS[t].name),
      concurrency: this.def.concurrency,
      handler: (message) => this.process(message),
    });
    this.log.info({ group: this.def.group, topics: this.def.topics, concurrency: this.def.concurrency }, 'actor pool started');
  }

  async stop(): Promise<void> {
    this.stopping.abort(new Error('pool stopping'));
    await this.subscription?.stop();
    this.subscription = null;
  }

  /** Never rejects for a handler failure; rejects only when publishing keeps failing (redelivery). */
  private async process(message: BusMessage): Promise<void> {
    let event: DecodedEvent;
    try {
      event = await this.events.read(message);
    } catch (error) {
      const failure = failureOf(error);
      return this.deadLetter(message, failure.code === 'internal_error' ? 'event_undecodable' : failure.code, failure.message, 1);
    }
    const requestId = message.headers[HEADERS.requestId];
    const log = requestId ? this.log.child({ requestId }) : this.log;
    for (let attempt = 1; ; attempt++) {
      const outcome = await this.attempt(event, message, attempt, log);
      if (outcome.kind === 'ack') {
        await this.publish(outcome.emit ?? []);
        return;
      }
      if (outcome.kind === 'dead' || attempt >= this.retryPolicy.attempts || this.stopping.signal.aborted) {
        return this.deadLetter(message, outcome.code, outcome.message, attempt);
      }
      const delay = backoffDelay(attempt, this.retryPolicy);
      log.warn({ code: outcome.code, attempt, delayMs: delay }, `attempt failed, retrying: ${outcome.message}`);
      await sleep(delay, this.stopping.signal).catch(() => undefined);
    }
  }

  private async attempt(event: DecodedEvent, message: BusMessage, attempt: number, log: Logger): Promise<Outcome> {
    const deadline = new AbortController();
    const signal = AbortSignal.any([deadline.signal, this.stopping.signal]);
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<Outcome>((resolve) => {
      timer = setTimeout(() => {
        deadline.abort(new Error('attempt timed out'));
        resolve({ kind: 'retry', code: 'upstream_timeout', message: `handler took longer than ${this.def.timeoutMs} ms` });
      }, this.def.timeoutMs);
    });
    try {
      return await Promise.race([this.def.handler(event, { log, signal, attempt, message }), timedOut]);
    } catch (error) {
      const failure = failureOf(error);
      return { kind: ERRORS[failure.code].retriable ? 'retry' : 'dead', ...failure };
    } finally {
      clearTimeout(timer);
    }
  }

  private async publish(emissions: readonly Emission[]): Promise<void> {
    if (emissions.length === 0) return;
    await retry(() => this.events.emit(emissions), {
      ...this.retryPolicy,
      onRetry: (error, attempt, delayMs) => this.log.warn({ attempt, delayMs, err: error }, 'publishing emissions failed, retrying'),
    });
  }

  private async deadLetter(message: BusMessage, code: ErrorCode, text: string, attempts: number): Promise<void> {
    this.log.error({ code, attempts, topic: message.topic, partition: message.partition, offset: message.offset }, `dead-lettered: ${text}`);
    const headers = {
      ...message.headers,
      [HEADERS.errorCode]: code,
      [HEADERS.errorMessage]: text.slice(0, 1000),
      [HEADERS.attempts]: String(attempts),
      [HEADERS.sourceTopic]: message.topic,
      [HEADERS.group]: this.def.group,
      [HEADERS.failedAt]: new Date().toISOString(),
    };
    await retry(() => this.events.bus.publish(TOPICS.deadLetters.name, [{ key: message.key, value: message.value, headers }]), this.retryPolicy);
  }
}
