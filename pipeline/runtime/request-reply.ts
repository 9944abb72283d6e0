/**
 * Request-reply over the bus, for the gateway's synchronous operations. The requester
 * publishes an event naming the replies topic and a fresh correlation id, and waits for the
 * `Reply` with that id. Every gateway process reads the whole replies topic in a consumer
 * group of its own (starting at the end) and keeps only the replies it is waiting for.
 * No reply within the timeout is `upstream_timeout` (504): no worker answered in time.
 */
import { randomUUID } from 'node:crypto';
import { isErrorCode } from '../../schemas/errors.js';
import { HEADERS, TOPICS, type TopicKey } from '../../schemas/topics.js';
import type { EventValue } from '../../schemas/events/index.js';
import type { Subscription } from './bus/bus.js';
import { AppError, errorCode } from './errors.js';
import type { AnyEmission, Emission, Events, TopicEvent } from './events.js';
import type { Logger } from './log.js';

export type ReplyValue = EventValue<'Reply'>;

/** The fields every request event carries, filled in by `ask`. */
type RequestFields = 'requestId' | 'tenant' | 'replyTo' | 'correlationId' | 'deadlineMs' | 'createdAtMs';

/** What the asker gives of a `topic` request event: all but the fields `ask` fills in. */
export type AskFields<K extends TopicKey> = Omit<EventValue<TopicEvent<K>>, RequestFields>;

/** Who asks: the request's id (the event's key and requestId header) and key; `signal` aborts the wait. */
export interface AskContext {
  readonly requestId: string;
  readonly tenant: string;
  readonly signal?: AbortSignal;
}

/** Time the pipeline may take beyond a request's own timeout (queueing, parsing). */
export const PIPELINE_SLACK_MS = 15_000;

interface Pending {
  resolve: (reply: ReplyValue) => void;
  reject: (error: unknown) => void;
}

export class Requester {
  private readonly pending = new Map<string, Pending>();
  private subscription: Subscription | null = null;
  private stopped = false;
  readonly instanceId = randomUUID();

  constructor(
    private readonly events: Events,
    private readonly log: Logger,
  ) {}

  async start(): Promise<void> {
    this.subscription = await this.events.bus.consume({
      group: `gateway-replies-${this.instanceId}`,
      topics: [TOPICS.replies.name],
      concurrency: TOPICS.replies.partitions,
      fromBeginning: false,
      handler: async (message) => {
        const decoded = await this.events.read(message).catch((error: unknown) => {
          this.log.warn({ err: error }, 'undecodable reply dropped');
          return null;
        });
        if (!decoded || decoded.event !== 'Reply') return;
        const reply = decoded.value as ReplyValue;
        this.pending.get(reply.correlationId)?.resolve(reply);
      },
    });
  }

  /** Rejects the requests in flight with `service_unavailable`, and every later one. */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const waiter of [...this.pending.values()]) {
      waiter.reject(new AppError('service_unavailable', 'the gateway is shutting down'));
    }
    await this.subscription?.stop();
    this.subscription = null;
  }

  /**
   * Publishes the event built by `build` (given the correlation id and the replies topic) and
   * resolves with its reply; rejects with `upstream_timeout` after `timeoutMs`, with
   * `service_unavailable` when `signal` aborts (the client went away) or the requester is not
   * running, and with `bus_unavailable` when the event cannot be published.
   */
  async request<K extends TopicKey>(
    build: (correlationId: string, replyTo: string) => Emission<K>,
    timeoutMs: number,
    signal?: AbortSignal,
  ): Promise<ReplyValue> {
    if (this.stopped || !this.subscription) {
      throw new AppError('service_unavailable', this.stopped ? 'the gateway is shutting down' : 'the gateway is not ready for requests');
    }
    if (signal?.aborted) throw new AppError('service_unavailable', 'the client went away');
    const correlationId = randomUUID();
    let timer: NodeJS.Timeout | undefined;
    let onAbort: (() => void) | undefined;
    const reply = new Promise<ReplyValue>((resolve, reject) => {
      const settle = () => {
        this.pending.delete(correlationId);
        clearTimeout(timer);
        if (onAbort) signal?.removeEventListener('abort', onAbort);
      };
      this.pending.set(correlationId, {
        resolve: (value) => {
          settle();
          resolve(value);
        },
        reject: (error) => {
          settle();
          reject(error);
        },
      });
      timer = setTimeout(
        () => this.pending.get(correlationId)?.reject(new AppError('upstream_timeout', `no worker answered within ${timeoutMs} ms`)),
        timeoutMs,
      );
      onAbort = () => this.pending.get(correlationId)?.reject(new AppError('service_unavailable', 'the client went away'));
      signal?.addEventListener('abort', onAbort, { once: true });
    });
    // The reply may be rejected (timeout, abort, stop) while the request is still being
    // published, before anyone awaits it: that must not count as an unhandled rejection.
    reply.catch(() => undefined);
    try {
      await this.events.emit([build(correlationId, TOPICS.replies.name) as Emission]);
    } catch (error) {
      // A coded failure of the request itself (too large, not encodable) keeps its code.
      const code = errorCode(error);
      const failure =
        code !== undefined && isErrorCode(code) && code !== 'bus_unavailable'
          ? error
          : new AppError('bus_unavailable', `could not publish the request: ${(error as Error).message}`, { cause: error });
      this.pending.get(correlationId)?.reject(failure);
      throw failure;
    }
    return reply;
  }

  /** Requests in flight (for health and tests). */
  get inFlight(): number {
    return this.pending.size;
  }
}

/** A Requester a pool starts on first use (see `lazyRequester`). */
export interface LazyRequester {
  /** The started Requester; the first call starts it, and a start that fails is tried again by the next call. */
  get(): Promise<Requester>;
  /** Stops it, when it was started. */
  stop(): Promise<void>;
}

/**
 * A Requester of a pool's own (a pool that asks another pool: the classifier and the intel pool
 * read pages, the searcher reads companies), started on first use rather than with every
 * process of the pool, and shared by its handlers. Its replies are read in a group of its own.
 */
export function lazyRequester(events: Events, log: Logger): LazyRequester {
  let started: Promise<Requester> | null = null;
  const get = (): Promise<Requester> =>
    (started ??= (async () => {
      const requester = new Requester(events, log);
      await requester.start();
      return requester;
    })().catch((error: unknown) => {
      started = null;
      throw error;
    }));
  return {
    get,
    async stop() {
      const requester = await started?.catch(() => null);
      await requester?.stop();
    },
  };
}

/**
 * Publishes the `topic` event made of `fields` and the request's own (id, tenant, where to
 * reply, a deadline `timeoutMs` from now), keyed and tagged by the request id, and resolves
 * with its Reply (rejections: see Requester.request).
 */
export function ask<K extends TopicKey>(
  requester: Pick<Requester, 'request'>,
  ctx: AskContext,
  topic: K,
  fields: AskFields<K>,
  timeoutMs: number,
): Promise<ReplyValue> {
  const now = Date.now();
  return requester.request(
    (correlationId, replyTo) => ({
      topic,
      key: ctx.requestId,
      headers: { [HEADERS.requestId]: ctx.requestId },
      value: {
        ...fields,
        requestId: ctx.requestId,
        tenant: ctx.tenant,
        replyTo,
        correlationId,
        deadlineMs: now + timeoutMs,
        createdAtMs: now,
      } as EventValue<TopicEvent<K>>,
    }),
    timeoutMs,
    ctx.signal,
  );
}

/**
 * The failed Reply standing for a request that could not be asked or answered in time (its
 * error's code and message), for callers that read several pages and let one fail alone.
 */
export function failedReply(error: unknown): ReplyValue {
  return {
    correlationId: '',
    ok: false,
    data: null,
    errorCode: error instanceof AppError ? error.code : 'internal_error',
    errorMessage: error instanceof Error ? error.message : String(error),
    credits: 0,
    source: null,
  };
}

/** What a worker needs of a request to answer it. */
export interface Answerable {
  readonly requestId: string;
  readonly replyTo: string | null;
  readonly correlationId: string | null;
}

/**
 * The Reply answering `request` on the replies topic it named; none when it named no reply
 * topic (job pages are reported through job events instead). A replyTo naming any other topic
 * is logged and not answered.
 */
export function replyTo(request: Answerable, value: Omit<ReplyValue, 'correlationId'>, log?: Logger): AnyEmission[] {
  if (!request.replyTo || !request.correlationId) return [];
  if (request.replyTo !== TOPICS.replies.name) {
    log?.warn({ replyTo: request.replyTo }, 'replyTo names no replies topic; not answered');
    return [];
  }
  return [
    {
      topic: 'replies',
      key: request.correlationId,
      headers: { [HEADERS.requestId]: request.requestId },
      value: { correlationId: request.correlationId, ...value },
    },
  ];
}
