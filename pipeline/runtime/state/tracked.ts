/**
 * What FileState (file.ts) needs to hear of the in-memory keyspace to write it behind:
 * each key written, created, deleted or given an expiry (`key`; `members` when every member
 * of it must be written again: a collection created or deleted), and each member of a
 * collection added, changed or removed (`member`; a list says '' for any change).
 */
export interface KeyTracker {
  key(key: string, members: boolean): void;
  member(key: string, member: string): void;
}

/** A Set that reports each member it gains or loses. */
export class TrackedSet extends Set<string> {
  constructor(private readonly changed: (member: string) => void) {
    super();
  }

  override add(member: string): this {
    if (!super.has(member)) {
      super.add(member);
      this.changed(member);
    }
    return this;
  }

  override delete(member: string): boolean {
    const deleted = super.delete(member);
    if (deleted) this.changed(member);
    return deleted;
  }
}

/** A Map that reports each field it sets or loses. */
export class TrackedMap extends Map<string, string> {
  constructor(private readonly changed: (field: string) => void) {
    super();
  }

  override set(field: string, value: string): this {
    super.set(field, value);
    this.changed(field);
    return this;
  }

  override delete(field: string): boolean {
    const deleted = super.delete(field);
    if (deleted) this.changed(field);
    return deleted;
  }
}
