/**
 * A FIFO queue of strings with O(1) amortised push and shift: a head index into an array,
 * compacted once the consumed prefix is at least half of it.
 *
 * Each value has an absolute position (`first` is the head's; it only grows), so FileState
 * can write a queue behind by position: rows below `first` are gone, rows up to `end` exist.
 * `changed`, when given, is told of every push and shift.
 */
export class Fifo {
  private items: string[] = [];
  private head = 0;

  constructor(
    /** The absolute position of the head. */
    private start = 0,
    private readonly changed?: () => void,
  ) {}

  get length(): number {
    return this.items.length - this.head;
  }

  /** The absolute position of the head value. */
  get first(): number {
    return this.start + this.head;
  }

  /** The absolute position after the last value. */
  get end(): number {
    return this.start + this.items.length;
  }

  /** The values from absolute position `from` (at least `first`) to the end. */
  from(from: number): string[] {
    return this.items.slice(Math.max(from, this.first) - this.start);
  }

  push(values: readonly string[]): number {
    for (const value of values) this.items.push(value);
    if (values.length) this.changed?.();
    return this.length;
  }

  /** Removes and returns up to `count` values from the head. */
  shift(count: number): string[] {
    const end = Math.min(this.items.length, this.head + count);
    const out = this.items.slice(this.head, end);
    this.head = end;
    if (this.head >= 1024 && this.head * 2 >= this.items.length) {
      this.items = this.items.slice(this.head);
      this.start += this.head;
      this.head = 0;
    }
    if (out.length) this.changed?.();
    return out;
  }
}
