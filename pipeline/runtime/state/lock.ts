import { randomUUID } from 'node:crypto';
import type { Lock } from './state.js';

/**
 * What a State implementation does for a held lock, keyed by the lock's storage key and the
 * holder's token. Both are compare-by-token: they act only when the key still holds `token`.
 */
export interface LockOps {
  releaseIfOwner(key: string, token: string): Promise<boolean>;
  extendIfOwner(key: string, token: string, ttlMs: number): Promise<boolean>;
}

/** A fresh random token identifying one holder of one lock. */
export const newLockToken = (): string => randomUUID();

/** The Lock handed to the caller who took it; it remembers its token. */
export class HeldLock implements Lock {
  constructor(
    readonly name: string,
    private readonly key: string,
    private readonly token: string,
    private readonly ops: LockOps,
  ) {}

  release(): Promise<boolean> {
    return this.ops.releaseIfOwner(this.key, this.token);
  }

  extend(ttlMs: number): Promise<boolean> {
    return this.ops.extendIfOwner(this.key, this.token, ttlMs);
  }
}
