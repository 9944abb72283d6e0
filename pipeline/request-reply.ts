/**
 * Request-reply over the bus, for the gateway's synchronous operations. The requester
 * publishes an event naming the replies topic and a fresh correlation id, and waits for the
 * `Reply` with that id. Every gateway process reads the whole replies topic in a consumer
 * group of its own (starting at the end) and keeps only the replies it is waiting for.
 * No reply within the timeout is `upstream_timeout` (504): no worker answered in time.
 */
import { randomUUID } from 'node:crypto';
import { TOPICS, type TopicKey } from '../schemas/topics.js';
import type { EventValue } from '../schemas/events/index.js';
import type { Subscription } from './bus/bus.js';
import { AppError } from './errors.js';
import type { Emission, Events } from './events.js';
import type { Logger } from './log.js';

export type ReplyValue = EventValue<'Reply'>;

interface Pending {
  resolve: (reply: ReplyValue) => void;
  reject: (error: unknown) => void;
  timer: NodeJS.Timeout;
}

export class Requester {
  private readonly pending = new Map<string, Pending>();
  private subscription: Subscription | null = null;
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
        const waiter = this.pending.get(reply.correlationId);
        if (!waiter) return;
        this.pending.delete(reply.correlationId);
        clearTimeout(waiter.timer);
        waiter.resolve(reply);
      },
    });
  }

  async stop(): Promise<void> {
    for (const [id, waiter] of this.pending) {
      clearTimeout(waiter.timer);
      waiter.reject(new AppError('service_unavailable', 'the gateway is shutting down'));
      this.pending.delete(id);
    }
    await this.subscription?.stop();
  }

  /**
   * Publishes the event built by `build` (given the correlation id and the replies topic) and
   * resolves with its reply; rejects with `upstream_timeout` after `timeoutMs`.
   */
  async request<K extends TopicKey>(
    build: (correlationId: string, replyTo: string) => Emission<K>,
    timeoutMs: number,
    signal?: AbortSignal,
  ): Promise<ReplyValue> {
    const correlationId = randomUUID();
    const reply = new Promise<ReplyValue>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(correlationId);
        reject(new AppError('upstream_timeout', `no worker answered within ${timeoutMs} ms`));
      }, timeoutMs);
      this.pending.set(correlationId, { resolve, reject, timer });
      signal?.addEventListener(
        'abort',
        () => {
          const waiter = this.pending.get(correlationId);
          if (!waiter) return;
          this.pending.delete(correlationId);
          clearTimeout(waiter.timer);
          reject(new AppError('service_unavailable', 'the client went away'));
        },
        { once: true },
      );
    });
    try {
      await this.events.emit([build(correlationId, TOPICS.replies.name) as Emission]);
    } catch (error) {
      const waiter = this.pending.get(correlationId);
      if (waiter) {
        clearTimeout(waiter.timer);
        this.pending.delete(correlationId);
      }
      throw new AppError('bus_unavailable', `could not publish the request: ${(error as Error).message}`, { cause: error });
    }
    return reply;
  }

  /** Requests in flight (for health and tests). */
  get inFlight(): number {
    return this.pending.size;
  }
}
