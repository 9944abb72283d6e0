import type { Logger } from '../log.js';
import { MemoryState } from './memory.js';
import { RedisState } from './redis.js';
import type { State } from './state.js';

export type { Lock, State, TokenBucketOptions, TokenBucketResult } from './state.js';

export type StateOptions =
  | { kind: 'memory' }
  | {
      kind: 'redis';
      url: string;
      namespace?: string;
      log: Logger;
      /** How long start-up waits for Redis before failing (default 5000). */
      connectTimeoutMs?: number;
    };

/**
 * The coordination state for this process: in memory (embedded mode) or in Redis
 * (distributed). A Redis state is connected before this resolves, so a Redis that is down
 * fails start-up with AppError `state_unavailable` instead of the first request.
 */
export async function createState(options: StateOptions): Promise<State> {
  if (options.kind === 'memory') return new MemoryState();
  const state = new RedisState(options);
  await state.connect();
  return state;
}
