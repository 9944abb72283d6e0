/**
 * The actor pool: runs one actor's pure handlers over the events of its topics, as one member
 * of the actor's consumer group. The bus gives at-least-once delivery and backpressure
 * (`concurrency` handlers at most); the pool adds what every actor needs, once, so a handler
 * holds only its own work.
 *
 * An actor declares one handler per event name it reads (ActorDefinition `handlers`), typed by
 * the event's generated value type:
 *
 *   handlers: {
 *     ScrapeRequested: { handle: (event, ctx) => …, dropped: (event) => […], failed: (event, code, message) => […] },
 *     FetchRequested: (event, ctx) => …,
 *   }
 *
 * Lifecycle of one message:
 * 1. decode (a payload sent by reference is fetched first); undecodable → dead-letter at once;
 * 2. dispatch by event name (`handleEvent`): an event the actor declares no handler for →
 *    dead-letter (`event_undecodable`); an event that carries `deadlineMs` and is past it →
 *    dropped: `ack`, emitting only what the handler's `dropped` hook returns (a job page is
 *    reported failed), because nobody waits for it any more (a handler that reads a late
 *    event anyway says `expires: false`);
 * 3. run the handler with a per-attempt timeout; the handler returns an Outcome:
 *    - `ack`: publish its emissions, then the message counts as done (the bus commits it);
 *    - `fail`: the request failed for good and is answered: the pool builds the failure Reply
 *      {ok: false, errorCode, errorMessage, credits: 0, source} to the event's reply address
 *      (when it has one), adds what the handler's `failed` hook emits (a job page's
 *      pageFailed), and goes on as for `ack`;
 *    - `retry`: a transient failure — back off (exponential, jittered) and run it again, up to
 *      `attempts` in all, then dead-letter;
 *    - `dead`: a permanent failure — dead-letter now.
 *    A handler that throws is treated as `retry` when the error's code is retriable (per
 *    schemas/errors.ts), else `dead`;
 * 4. dead-lettering publishes the original bytes and headers to the dead-letter topic with the
 *    error code, message, attempt count, source topic and group, and then counts as done, so a
 *    poison event never blocks its partition for longer than its retries. A decoded event whose
 *    handler failed for good (thrown, `dead`, or retries spent) is answered first as a `fail`
 *    would be (the failure Reply to its reply address, the `failed` hook's emissions): whoever
 *    waits on it — a caller, a job counting its pages — hears of the failure now, not at its
 *    deadline.
 * Emissions are published before the message is done: a crash in between re-runs the handler
 * and emits again, so downstream handlers must be idempotent. Emissions that cannot be
 * encoded (too large, not matching their schema) dead-letter the message.
 *
 * Failures of the runtime rather than of the event — the bus or the store being unavailable
 * while fetching a payload by reference or publishing emissions or a dead letter — are
 * retried and then handed back to the bus uncommitted (it redelivers with its own backoff),
 * never dead-lettered. So is a message whose attempt failed while the pool is stopping:
 * `stop()` aborts the attempts' signals and waits for them; one that still acks is done, one
 * that gives up goes to the group's next member.
 */
import { setMaxListeners } from 'node:events';
import { performance } from 'node:perf_hooks';
import { ERRORS, isErrorCode, type ErrorCode } from '../../schemas/errors.js';
import type { EventName, EventValue } from '../../schemas/events/index.js';
import { HEADERS, TOPICS, type TopicKey } from '../../schemas/topics.js';
import type { BusMessage, Subscription } from './bus/bus.js';
import type { DecodedEvent } from './codec/codec.js';
import type { AnyEmission, Emission, Events } from './events.js';
import type { Logger } from './log.js';
import { AppError, errorCode } from './errors.js';
import { Children, type CounterChild, type HistogramChild, type Metrics } from './metrics/metrics.js';
import { replyTo, type Answerable } from './request-reply.js';
import { backoffDelay, retry, RetriesExhausted, sleep } from './retry.js';

export type Outcome =
  | { readonly kind: 'ack'; readonly emit?: readonly AnyEmission[] }
  | { readonly kind: 'fail'; readonly code: ErrorCode; readonly message: string }
  | { readonly kind: 'retry'; readonly code: ErrorCode; readonly message: string }
  | { readonly kind: 'dead'; readonly code: ErrorCode; readonly message: string };

/** What the pool settles a message with: every Outcome but `fail`, which it turns into an answered `ack`. */
export type Settled = Exclude<Outcome, { kind: 'fail' }>;

export interface ActorContext {
  readonly log: Logger;
  /** Aborted when the attempt times out or the pool stops. */
  readonly signal: AbortSignal;
  /** 1-based attempt number. */
  readonly attempt: number;
  readonly message: BusMessage;
}

/** A handler of one event type: its value, typed by the event's generated type, in; an Outcome out. */
export type EventHandler<N extends EventName> = (event: EventValue<N>, ctx: ActorContext) => Promise<Outcome>;

/** A handler with the hooks the pool's plumbing calls for its event type. */
export interface EventHandling<N extends EventName> {
  readonly handle: EventHandler<N>;
  /** What is emitted for an event dropped past its deadline (default: nothing). */
  readonly dropped?: (event: EventValue<N>) => readonly AnyEmission[];
  /** What is emitted besides the failure Reply for a `fail` outcome (default: nothing). */
  readonly failed?: (event: EventValue<N>, code: ErrorCode, message: string) => readonly AnyEmission[];
  /** The failure Reply's `source` (default: the actor's name). */
  readonly replySource?: string | null;
  /** False: an event past its `deadlineMs` is still handled (default: it is dropped). */
  readonly expires?: boolean;
}

/** An actor's handlers, by the name of the event each reads. */
export type EventHandlers = { readonly [N in EventName]?: EventHandler<N> | EventHandling<N> };

export interface ActorDefinition {
  /** Actor (role) name, used in logs and as the `source` of the failure replies the pool builds. */
  readonly name: string;
  /** Consumer group; every process of this actor joins it. */
  readonly group: string;
  readonly topics: readonly TopicKey[];
  readonly concurrency: number;
  /** Time allowed for one attempt. */
  readonly timeoutMs: number;
  readonly handlers: EventHandlers;
  /** Releases what the actor holds (a browser, sockets); called once the pool has stopped. */
  readonly close?: () => Promise<void>;
}

function handlingOf<N extends EventName>(entry: EventHandler<N> | EventHandling<N> | undefined): EventHandling<N> | null {
  if (!entry) return null;
  return typeof entry === 'function' ? { handle: entry } : entry;
}

/** The deadline an event carries, if its type has one. */
function deadlineOf(value: unknown): number | null {
  const deadline = (value as { deadlineMs?: unknown }).deadlineMs;
  return typeof deadline === 'number' ? deadline : null;
}

function isAnswerable(value: unknown): value is Answerable {
  const v = value as Partial<Answerable>;
  return typeof v.requestId === 'string' && v.replyTo !== undefined && v.correlationId !== undefined;
}

/**
 * The pool's per-event plumbing around an actor's handler, for one attempt (steps 2 and 3 of
 * the lifecycle above): dispatch by event name, the deadline drop, the failure answer. Pure
 * but for the handler it runs: tests call it to run a handler as the pool does, without a bus.
 * `nowMs` is when the attempt starts.
 */
export async function handleEvent(def: Pick<ActorDefinition, 'name' | 'handlers'>, event: DecodedEvent, ctx: ActorContext, nowMs: number = Date.now()): Promise<Settled> {
  const handling = handlingOf(def.handlers[event.event] as EventHandler<EventName> | EventHandling<EventName> | undefined);
  if (!handling) return { kind: 'dead', code: 'event_undecodable', message: `unexpected ${event.event} event` };
  const value = event.value;
  const deadlineMs = deadlineOf(value);
  if (handling.expires !== false && deadlineMs !== null && nowMs > deadlineMs) {
    ctx.log.warn({ event: event.event, lateMs: nowMs - deadlineMs }, `${event.event} past its deadline; dropped`);
    const emit = handling.dropped?.(value) ?? [];
    return emit.length ? { kind: 'ack', emit } : { kind: 'ack' };
  }
  const outcome = await handling.handle(value, ctx);
  if (outcome?.kind !== 'fail') return outcome as Settled;
  return { kind: 'ack', emit: failureAnswer(def, event, outcome, ctx.log) };
}

/** What answers an event that failed for good: the failure Reply to its reply address (when it has one) and the handler's `failed` hook's emissions. */
function failureAnswer(def: Pick<ActorDefinition, 'name' | 'handlers'>, event: DecodedEvent, failure: Failure, log: Logger): AnyEmission[] {
  const handling = handlingOf(def.handlers[event.event] as EventHandler<EventName> | EventHandling<EventName> | undefined);
  if (!handling) return [];
  const value = event.value;
  const source = handling.replySource === undefined ? def.name : handling.replySource;
  const reply = isAnswerable(value) ? replyTo(value, { ok: false, data: null, errorCode: failure.code, errorMessage: failure.message, credits: 0, source }, log) : [];
  return [...reply, ...(handling.failed?.(value, failure.code, failure.message) ?? [])];
}

export interface PoolRetry {
  attempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
}

export const DEFAULT_POOL_RETRY: PoolRetry = { attempts: 4, baseDelayMs: 200, maxDelayMs: 5000 };

function failureOf(error: unknown): { code: ErrorCode; message: string } {
  const code = errorCode(error);
  const message = error instanceof Error ? error.message : String(error);
  return { code: code !== undefined && isErrorCode(code) ? code : 'internal_error', message };
}

/** Codes that say the runtime (bus, store) failed, not the event: such a message is never dead-lettered. */
const INFRASTRUCTURE_CODES: ReadonlySet<ErrorCode> = new Set(['bus_unavailable', 'store_unavailable']);

/** setTimeout's largest delay; a longer (or infinite) attempt timeout means none. */
const MAX_TIMER_MS = 2 ** 31 - 1;

function isSettled(value: unknown): value is Settled {
  const kind = (value as { kind?: unknown } | null)?.kind;
  return kind === 'ack' || kind === 'retry' || kind === 'dead';
}

type Failure = { code: ErrorCode; message: string };

/** The pool's label children in the process's metrics (pipeline/runtime/metrics/), each resolved once. */
class PoolMeter {
  readonly handlerSeconds: Children<HistogramChild>;
  readonly retries: Children<CounterChild>;
  readonly deadLetters: Children<CounterChild>;
  constructor(metrics: Metrics, actor: string) {
    this.handlerSeconds = new Children((event) => metrics.handlerSeconds.labels(actor, event));
    this.retries = new Children((code) => metrics.retries.labels(actor, code));
    this.deadLetters = new Children((code) => metrics.deadLetters.labels(actor, code));
  }
}

export class ActorPool {
  private subscription: Subscription | null = null;
  private readonly stopping = new AbortController();
  private readonly log: Logger;
  private readonly meter: PoolMeter | null;
  /** Messages being processed now (wds_handlers_in_flight). */
  private inFlight = 0;

  constructor(
    private readonly def: ActorDefinition,
    private readonly events: Events,
    log: Logger,
    private readonly retryPolicy: PoolRetry = DEFAULT_POOL_RETRY,
    /** The process's metrics; without them the pool counts nothing. */
    metrics: Metrics | null = null,
  ) {
    this.log = log.child({ actor: def.name });
    // Every running attempt listens for stop(): as many as `concurrency`, which is no leak.
    setMaxListeners(0, this.stopping.signal);
    this.meter = metrics ? new PoolMeter(metrics, def.name) : null;
    metrics?.inFlightOf(def.name, () => this.inFlight);
  }

  async start(): Promise<void> {
    this.subscription = await this.events.bus.consume({
      group: this.def.group,
      topics: this.def.topics.map((t) => TOPICS[t].name),
      concurrency: this.def.concurrency,
      handler: (message) => this.counted(message),
    });
    this.log.info({ group: this.def.group, topics: this.def.topics, concurrency: this.def.concurrency }, 'actor pool started');
  }

  /** Aborts the running attempts' signals, waits for them to settle, and leaves the group. */
  async stop(): Promise<void> {
    this.stopping.abort(new Error('pool stopping'));
    await this.subscription?.stop();
    this.subscription = null;
    await this.def.close?.().catch((error: unknown) => this.log.warn({ err: error }, 'the actor did not release everything it held'));
  }

  private async counted(message: BusMessage): Promise<void> {
    this.inFlight++;
    try {
      await this.process(message);
    } finally {
      this.inFlight--;
    }
  }

  /**
   * Never rejects for a failure of the event or its handler. Rejects (so the bus redelivers)
   * when the bus or store keeps failing, and when the pool stops before the message is done.
   */
  private async process(message: BusMessage): Promise<void> {
    const read = await this.decode(message);
    if ('failure' in read) return this.deadLetter(message, read.failure.code, read.failure.message, read.attempts);
    const event = read.event;
    const requestId = message.headers[HEADERS.requestId];
    const log = requestId ? this.log.child({ requestId }) : this.log;
    const timed = this.meter?.handlerSeconds.of(event.event);
    for (let attempt = 1; ; attempt++) {
      const started = timed ? performance.now() : 0;
      const outcome = await this.attempt(event, message, attempt, log);
      timed?.observe((performance.now() - started) / 1000);
      if (outcome.kind === 'ack') {
        const failure = await this.publish(outcome.emit ?? [], log);
        if (!failure) return;
        return this.deadLetter(message, failure.code, `emitting failed: ${failure.message}`, attempt);
      }
      if (outcome.kind === 'dead') return this.givenUp(event, message, outcome, attempt, log);
      if (this.stopping.signal.aborted) throw this.released(message, outcome);
      if (attempt >= this.retryPolicy.attempts) return this.givenUp(event, message, outcome, attempt, log);
      await this.backoff(attempt, outcome, log, message);
    }
  }

  /** The decoded event, or why it cannot be decoded (after retries when the store failed). */
  private async decode(message: BusMessage): Promise<{ event: DecodedEvent } | { failure: Failure; attempts: number }> {
    for (let attempt = 1; ; attempt++) {
      try {
        return { event: await this.events.read(message) };
      } catch (error) {
        const failure = failureOf(error);
        if (failure.code === 'internal_error') failure.code = 'event_undecodable';
        if (!INFRASTRUCTURE_CODES.has(failure.code)) return { failure, attempts: attempt };
        if (this.stopping.signal.aborted || attempt >= this.retryPolicy.attempts) throw error;
        await this.backoff(attempt, { kind: 'retry', ...failure }, this.log, message);
      }
    }
  }

  /** Sleeps before the next attempt; throws (releasing the message) when the pool stops meanwhile. */
  private async backoff(attempt: number, outcome: Settled & { kind: 'retry' }, log: Logger, message: BusMessage): Promise<void> {
    const delay = backoffDelay(attempt, this.retryPolicy);
    this.meter?.retries.of(outcome.code).inc();
    log.warn({ code: outcome.code, attempt, delayMs: delay }, `attempt failed, retrying: ${outcome.message}`);
    try {
      await sleep(delay, this.stopping.signal);
    } catch {
      throw this.released(message, outcome);
    }
  }

  /** The error that hands a message back to the bus uncommitted, for the group's next member. */
  private released(message: BusMessage, outcome: Failure): AppError {
    this.log.info({ topic: message.topic, partition: message.partition, offset: message.offset, code: outcome.code }, 'pool stopping: message handed back');
    return new AppError('service_unavailable', `actor pool ${this.def.name} is stopping; the message is handed back (${outcome.code}: ${outcome.message})`);
  }

  private async attempt(event: DecodedEvent, message: BusMessage, attempt: number, log: Logger): Promise<Settled> {
    // One controller per attempt, aborted by the deadline or by stop(). (Not AbortSignal.any:
    // on Node 20 it costs ~30 µs and a weak reference per call, most of a hop's budget.)
    const deadline = new AbortController();
    const stopping = this.stopping.signal;
    const onStop = () => deadline.abort(stopping.reason);
    if (stopping.aborted) onStop();
    else stopping.addEventListener('abort', onStop, { once: true });
    const signal = deadline.signal;
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<Settled>((resolve) => {
      if (!(this.def.timeoutMs <= MAX_TIMER_MS)) return;
      timer = setTimeout(() => {
        deadline.abort(new AppError('upstream_timeout', `attempt timed out after ${this.def.timeoutMs} ms`));
        resolve({ kind: 'retry', code: 'upstream_timeout', message: `handler took longer than ${this.def.timeoutMs} ms` });
      }, this.def.timeoutMs);
    });
    try {
      const outcome: unknown = await Promise.race([handleEvent(this.def, event, { log, signal, attempt, message }), timedOut]);
      if (isSettled(outcome)) return outcome;
      return { kind: 'retry', code: 'internal_error', message: `handler returned ${JSON.stringify(outcome) ?? 'undefined'}, not an Outcome` };
    } catch (error) {
      const failure = failureOf(error);
      return { kind: ERRORS[failure.code].retriable ? 'retry' : 'dead', ...failure };
    } finally {
      clearTimeout(timer);
      stopping.removeEventListener('abort', onStop);
    }
  }

  /**
   * Publishes emissions, retrying what may pass later. Resolves with the failure when they
   * cannot be published at all (not encodable, too large); rejects when the bus or store keeps
   * failing, so the bus redelivers the message.
   */
  private async publish(emissions: readonly Emission[], log: Logger): Promise<Failure | null> {
    if (emissions.length === 0) return null;
    try {
      await retry(() => this.events.emit(emissions), {
        ...this.retryPolicy,
        retriable: (error) => INFRASTRUCTURE_CODES.has(failureOf(error).code),
        onRetry: (error, attempt, delayMs) => log.warn({ attempt, delayMs, err: error }, 'publishing emissions failed, retrying'),
      });
      return null;
    } catch (error) {
      const failure = failureOf(error instanceof RetriesExhausted ? error.cause : error);
      if (INFRASTRUCTURE_CODES.has(failure.code)) throw error;
      return failure;
    }
  }

  /** A decoded event the handler failed for good: answered as a `fail` (step 4 above), then dead-lettered. */
  private async givenUp(event: DecodedEvent, message: BusMessage, outcome: Failure, attempts: number, log: Logger): Promise<void> {
    const emit = failureAnswer(this.def, event, outcome, log);
    const failure = emit.length ? await this.publish(emit, log) : null;
    if (failure) log.warn({ code: failure.code }, `the failure answer could not be published: ${failure.message}`);
    return this.deadLetter(message, outcome.code, outcome.message, attempts);
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
    this.meter?.deadLetters.of(code).inc();
  }
}
