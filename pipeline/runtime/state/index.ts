import type { Logger } from '../log.js';
import { FileState } from './file.js';
import { MemoryState } from './memory.js';
import type { State } from './state.js';

export type { Lock, State, TokenBucketOptions, TokenBucketResult } from './state.js';

export type StateOptions =
  | { kind: 'memory' }
  /** Durable, one process: MemoryState written behind to an SQLite file (file.ts). */
  | { kind: 'file'; path: string; log?: Logger }
  | {
      kind: 'redis';
      url: string;
      namespace?: string;
      log: Logger;
      /** How long start-up waits for Redis before failing (default 5000). */
      connectTimeoutMs?: number;
    };

/**
 * The coordination state for this process: in memory, in memory written behind to a file
 * (both embedded mode: one process) or in Redis
 * (distributed). A Redis state is connected before this resolves, so a Redis that is down
 * fails start-up with AppError `state_unavailable` instead of the first request. The Redis
 * state (ioredis) is imported only when one is asked for: an embedded process never loads it.
 */
export async function createState(options: StateOptions): Promise<State> {
  if (options.kind === 'memory') return new MemoryState();
  if (options.kind === 'file') return FileState.open({ path: options.path, ...(options.log ? { log: options.log } : {}) });
  const { RedisState } = await import('./redis.js');
  const state = new RedisState(options);
  await state.connect();
  return state;
}
