/**
 * A FIFO queue of strings with O(1) amortised push and shift: a head index into an array,
 * compacted once the consumed prefix is at least half of it.
 */
export class Fifo {
  private items: string[] = [];
  private head = 0;

  get length(): number {
    return this.items.length - this.head;
  }

  push(values: readonly string[]): number {
    for (const value of values) this.items.push(value);
    return this.length;
  }

  /** Removes and returns up to `count` values from the head. */
  shift(count: number): string[] {
    const end = Math.min(this.items.length, this.head + count);
    const out = this.items.slice(this.head, end);
    this.head = end;
    if (this.head >= 1024 && this.head * 2 >= this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    return out;
  }
}
