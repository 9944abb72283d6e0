/**
 * An in-memory sorted set with Redis's order: by score, then by member compared as UTF-8
 * bytes (the order of code points). Insert and remove are a binary search plus an array
 * splice; popping the lowest `n` is one splice from the front — fine for the tens of
 * thousands of entries a schedule holds in embedded mode.
 */
export interface Scored {
  member: string;
  score: number;
}

/** Code-point order, which is UTF-8 byte order (plain `<` compares UTF-16 units). */
function compareMembers(a: string, b: string): number {
  return a === b ? 0 : Buffer.compare(Buffer.from(a), Buffer.from(b));
}

function compare(a: Scored, b: Scored): number {
  return a.score !== b.score ? (a.score < b.score ? -1 : 1) : compareMembers(a.member, b.member);
}

export class SortedSet {
  private readonly scores = new Map<string, number>();
  private readonly ordered: Scored[] = [];

  /** `changed`, when given, is told of each member added, moved or removed (FileState). */
  constructor(private readonly changed?: (member: string) => void) {}

  /** Every member, lowest first. */
  members(): string[] {
    return this.ordered.map((e) => e.member);
  }

  /** A member's score; undefined when it is not held. */
  scoreOf(member: string): number | undefined {
    return this.scores.get(member);
  }

  get size(): number {
    return this.ordered.length;
  }

  /** Adds `member` or moves it to `score`. */
  add(member: string, score: number): void {
    const old = this.scores.get(member);
    if (old === score) return;
    if (old !== undefined) this.ordered.splice(this.indexOf({ member, score: old }), 1);
    const entry = { member, score };
    this.ordered.splice(this.indexOf(entry), 0, entry);
    this.scores.set(member, score);
    this.changed?.(member);
  }

  /** Removes and returns up to `limit` entries with score <= maxScore, lowest first. */
  popUpTo(maxScore: number, limit: number): Scored[] {
    let n = 0;
    while (n < limit && n < this.ordered.length && (this.ordered[n] as Scored).score <= maxScore) n += 1;
    const out = this.ordered.splice(0, n);
    for (const { member } of out) {
      this.scores.delete(member);
      this.changed?.(member);
    }
    return out;
  }

  /** Where `entry` is, or would be inserted (lower bound). */
  private indexOf(entry: Scored): number {
    let lo = 0;
    let hi = this.ordered.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (compare(this.ordered[mid] as Scored, entry) < 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}
