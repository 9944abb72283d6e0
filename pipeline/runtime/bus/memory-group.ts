/**
 * One consumer group of the memory bus: its members, who owns which partition, the group's
 * committed offsets, and the dispatch loop.
 *
 * - Assignment: every (topic, partition) the group reads, in topic-name then partition order,
 *   is dealt round-robin to the live members subscribed to that topic, in join order. It is
 *   recomputed whenever a member joins or leaves (stop finished, or abort).
 * - Messages of one key run one at a time, in order; messages of different keys run side by
 *   side, also within one partition, so one slow message holds back only its own key (and
 *   the partition's messages behind a later message of that key), not the whole partition.
 *   A partition whose messages are still with its previous owner (a rebalance happened
 *   meanwhile) waits until those handlers settle.
 * - A member runs at most `concurrency` handlers, its partitions taking turns, and takes the
 *   next message only when a slot frees; the log is read, never copied into a queue.
 * - The committed offset is the lowest offset not yet handled: it advances only over messages
 *   whose handlers resolved, and a partition delivers at most MAX_PARTITION_WINDOW past it.
 *   `stop()` waits for running handlers and commits what they finish; `abort()` drops the
 *   member at once and ignores whatever its handlers later do, so their messages go to the
 *   new owner (messages already handled above the commit are not delivered again).
 */
import { setMaxListeners } from 'node:events';
import type { Logger } from '../log.js';
import { MAX_PARTITION_WINDOW, type BusMessage, type ConsumeOptions } from './bus.js';
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

/** One partition's deliveries in the group: what runs, whose it is, what finished above the commit. */
interface PartitionRun {
  /** The next offset to look at for delivery (at or above the committed one). */
  next: number;
  /** Offsets running now, with the member running each and its key. */
  readonly running: Map<number, { readonly member: Member; readonly key: string }>;
  /** Keys running now: a message waits while an earlier one of its key runs. */
  readonly keys: Set<string>;
  /** Offsets handled above the committed one (the commit moves over them once the gap below closes). */
  readonly done: Set<number>;
}

export class MemoryGroup {
  private readonly members: Member[] = [];
  /** topic → committed offset (next to deliver) per partition. */
  readonly positions = new Map<string, number[]>();
  private readonly owners = new Map<string, Member>();
  private readonly runs = new Map<string, PartitionRun>();
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
    // Its running messages are released now: delivered again, from the lowest, to the next owner.
    for (const run of this.runs.values()) {
      for (const [offset, holder] of run.running) {
        if (holder.member !== member) continue;
        run.running.delete(offset);
        run.keys.delete(holder.key);
        run.next = Math.min(run.next, offset);
      }
    }
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

  /** Fills each active member up to its concurrency, its partitions taking turns, one message a turn. */
  private pump(): void {
    for (const member of this.members) {
      if (member.state !== 'active') continue;
      const slots = member.assigned;
      let delivered = true;
      while (delivered && member.inFlight < member.options.concurrency) {
        delivered = false;
        for (let i = 0; i < slots.length && member.inFlight < member.options.concurrency; i++) {
          const index = (member.cursor + i) % slots.length;
          if (!this.dispatch(member, slots[index] as Slot)) continue;
          delivered = true;
          member.cursor = (index + 1) % slots.length;
        }
      }
    }
  }

  private runOf(slot: Slot): PartitionRun {
    let run = this.runs.get(slot.key);
    if (!run) {
      run = { next: 0, running: new Map(), keys: new Set(), done: new Set() };
      this.runs.set(slot.key, run);
    }
    return run;
  }

  /** Delivers the partition's next message to `member`; false when there is none it may have now. */
  private dispatch(member: Member, slot: Slot): boolean {
    const run = this.runOf(slot);
    // A partition handed over in a rebalance waits until its previous owner's handlers settled.
    for (const holder of run.running.values()) if (holder.member !== member) return false;
    const positions = this.positions.get(slot.topic) as number[];
    const log = this.context.topic(slot.topic).log(slot.partition);
    let committed = positions[slot.partition] as number;
    if (committed < log.start) {
      // Only possible if retention was bypassed; say so rather than stall.
      this.context.log.warn({ group: this.name, topic: slot.topic, partition: slot.partition, from: committed, to: log.start }, 'memory bus skipped trimmed messages');
      committed = positions[slot.partition] = log.start;
      for (const offset of run.done) if (offset < committed) run.done.delete(offset);
    }
    run.next = Math.max(run.next, committed);
    while (run.done.has(run.next) || run.running.has(run.next)) run.next++;
    if (run.next - committed >= MAX_PARTITION_WINDOW) return false;
    const offset = run.next;
    const stored = log.at(offset);
    // A message whose key has an earlier one running waits, and the partition's later messages with it.
    if (!stored || run.keys.has(stored.key)) return false;
    const message: BusMessage = {
      topic: slot.topic,
      partition: slot.partition,
      offset: String(offset),
      key: stored.key,
      value: stored.value,
      headers: stored.headers,
    };
    run.running.set(offset, { member, key: stored.key });
    run.keys.add(stored.key);
    run.next = offset + 1;
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
      .then((outcome) => this.settle(member, slot, offset, stored.key, outcome));
    return true;
  }

  private settle(member: Member, slot: Slot, offset: number, key: string, outcome: DeliveryOutcome): void {
    member.settleOne();
    if (member.abandoned.signal.aborted) return; // abort already released the message
    const run = this.runOf(slot);
    run.running.delete(offset);
    run.keys.delete(key);
    if (outcome === 'handled') {
      const positions = this.positions.get(slot.topic) as number[];
      let committed = positions[slot.partition] as number;
      if (offset >= committed) run.done.add(offset);
      while (run.done.delete(committed)) committed++;
      if (committed !== positions[slot.partition]) {
        positions[slot.partition] = committed;
        this.context.committed(slot.topic, slot.partition);
      }
    } else {
      run.next = Math.min(run.next, offset); // released: delivered again, before what follows it
    }
    this.schedule();
  }
}
