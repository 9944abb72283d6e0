/**
 * One consumer group of the memory bus: its members, who owns which partition, the group's
 * committed offsets, and the dispatch loop.
 *
 * - Assignment: every (topic, partition) the group reads, in topic-name then partition order,
 *   is dealt round-robin to the live members subscribed to that topic, in join order. It is
 *   recomputed whenever a member joins or leaves (stop finished, or abort).
 * - One message per partition in flight per group: a partition whose message is still with
 *   its previous owner (a rebalance happened meanwhile) waits until that handler settles.
 * - A member runs at most `concurrency` handlers, one per partition, and takes the next
 *   message only when a slot frees; the log is read, never copied into a queue.
 * - The committed offset advances only when a handler resolved. `stop()` waits for running
 *   handlers and commits what they finish; `abort()` drops the member at once and ignores
 *   whatever its handlers later do, so their messages go to the new owner.
 */
import { setMaxListeners } from 'node:events';
import type { Logger } from '../log.js';
import type { BusMessage, ConsumeOptions } from './bus.js';
import { deliver, type DeliveryOutcome } from './deliver.js';
import type { MemoryTopic } from './memory-log.js';

export interface GroupContext {
  topic(name: string): MemoryTopic;
  log: Logger;
  redeliveryDelayMs: number;
  maxRedeliveryDelayMs: number;
  /** Called after the group's committed offset of a partition advanced. */
  committed(topic: string, partition: number): void;
}

interface Slot {
  readonly topic: string;
  readonly partition: number;
  readonly key: string;
}

export class Member {
  state: 'active' | 'stopping' | 'gone' = 'active';
  inFlight = 0;
  assigned: Slot[] = [];
  /** Where the next dispatch scan starts, so partitions take turns. */
  cursor = 0;
  readonly abandoned = new AbortController();
  private idleWaiters: (() => void)[] = [];

  constructor(readonly options: ConsumeOptions) {
    // Every delivery in flight listens on it until it settles: more than 10 is normal.
    setMaxListeners(0, this.abandoned.signal);
  }

  whenIdle(): Promise<void> {
    if (this.inFlight === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  settleOne(): void {
    this.inFlight--;
    if (this.inFlight === 0) this.wake();
  }

  wake(): void {
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const w of waiters) w();
  }
}

const slotKey = (topic: string, partition: number) => `${topic}\u0000${partition}`;

export class MemoryGroup {
  private readonly members: Member[] = [];
  /** topic → committed offset (next to deliver) per partition. */
  readonly positions = new Map<string, number[]>();
  private readonly owners = new Map<string, Member>();
  private readonly busy = new Map<string, Member>();
  private scheduled = false;

  constructor(
    readonly name: string,
    private readonly context: GroupContext,
  ) {}

  get liveMembers(): number {
    return this.members.length;
  }

  join(options: ConsumeOptions): Member {
    const member = new Member(options);
    for (const name of options.topics) {
      if (this.positions.has(name)) continue;
      const topic = this.context.topic(name);
      const fromBeginning = options.fromBeginning ?? true;
      this.positions.set(
        name,
        topic.partitions.map((log) => (fromBeginning ? log.start : log.end)),
      );
    }
    this.members.push(member);
    this.rebalance();
    return member;
  }

  async stop(member: Member): Promise<void> {
    if (member.state === 'active') member.state = 'stopping';
    await member.whenIdle();
    this.leave(member);
  }

  abort(member: Member): void {
    if (member.state === 'gone') return;
    member.abandoned.abort();
    for (const [key, holder] of this.busy) if (holder === member) this.busy.delete(key);
    this.leave(member);
    member.wake();
  }

  private leave(member: Member): void {
    if (member.state === 'gone' && !this.members.includes(member)) return;
    member.state = 'gone';
    const index = this.members.indexOf(member);
    if (index >= 0) this.members.splice(index, 1);
    this.rebalance();
  }

  private rebalance(): void {
    this.owners.clear();
    for (const member of this.members) member.assigned = [];
    let turn = 0;
    for (const topic of [...this.positions.keys()].sort()) {
      const readers = this.members.filter((m) => m.options.topics.includes(topic));
      if (readers.length === 0) continue;
      const partitions = this.context.topic(topic).partitions.length;
      for (let partition = 0; partition < partitions; partition++) {
        const owner = readers[turn++ % readers.length] as Member;
        const key = slotKey(topic, partition);
        this.owners.set(key, owner);
        owner.assigned.push({ topic, partition, key });
      }
    }
    for (const member of this.members) member.cursor = 0;
    this.schedule();
  }

  /** Runs the dispatch loop soon (coalesced; never inside the caller's stack). */
  schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.pump();
    });
  }

  private pump(): void {
    for (const member of this.members) {
      if (member.state !== 'active') continue;
      const slots = member.assigned;
      for (let i = 0; i < slots.length && member.inFlight < member.options.concurrency; i++) {
        const index = (member.cursor + i) % slots.length;
        const slot = slots[index] as Slot;
        if (this.busy.has(slot.key)) continue;
        if (this.dispatch(member, slot)) member.cursor = (index + 1) % slots.length;
      }
    }
  }

  private dispatch(member: Member, slot: Slot): boolean {
    const positions = this.positions.get(slot.topic) as number[];
    const log = this.context.topic(slot.topic).log(slot.partition);
    let offset = positions[slot.partition] as number;
    if (offset < log.start) {
      // Only possible if retention was bypassed; say so rather than stall.
      this.context.log.warn({ group: this.name, topic: slot.topic, partition: slot.partition, from: offset, to: log.start }, 'memory bus skipped trimmed messages');
      offset = positions[slot.partition] = log.start;
    }
    const stored = log.at(offset);
    if (!stored) return false;
    const message: BusMessage = {
      topic: slot.topic,
      partition: slot.partition,
      offset: String(offset),
      key: stored.key,
      value: stored.value,
      headers: stored.headers,
    };
    this.busy.set(slot.key, member);
    member.inFlight++;
    void deliver(message, member.options.handler, {
      log: this.context.log,
      redeliveryDelayMs: this.context.redeliveryDelayMs,
      maxRedeliveryDelayMs: this.context.maxRedeliveryDelayMs,
      mayRetry: () => member.state === 'active' && this.owners.get(slot.key) === member,
      abandoned: member.abandoned.signal,
    })
      .catch((error: unknown): DeliveryOutcome => {
        this.context.log.error({ err: error, group: this.name }, 'memory bus delivery failed');
        return 'released';
      })
      .then((outcome) => this.settle(member, slot, offset, outcome));
    return true;
  }

  private settle(member: Member, slot: Slot, offset: number, outcome: DeliveryOutcome): void {
    member.settleOne();
    if (member.abandoned.signal.aborted) return; // abort already released the partition
    if (this.busy.get(slot.key) === member) this.busy.delete(slot.key);
    if (outcome === 'handled') {
      const positions = this.positions.get(slot.topic) as number[];
      if (positions[slot.partition] === offset) {
        positions[slot.partition] = offset + 1;
        this.context.committed(slot.topic, slot.partition);
      }
    }
    this.schedule();
  }
}
