/**
 * The production actors (main.ts ACTORS), each built as in production, with the runtime they
 * are built with kept: for a test or bench that reads the store its service writes.
 */
import type { ActorSpec } from '../../actors/index.js';
import { ACTORS } from '../../main.js';
import type { ServiceRuntime } from '../../pipeline/service/config.js';

export function runtimeCapturingActors(): { actors: ActorSpec[]; runtime(): ServiceRuntime } {
  let captured: ServiceRuntime | null = null;
  const actors = ACTORS.map((a) => ({
    ...a,
    create: (rt: ServiceRuntime, build: Parameters<(typeof a)['create']>[1]) => {
      captured = rt;
      return a.create(rt, build);
    },
  }));
  return {
    actors,
    runtime() {
      if (!captured) throw new Error('no actor was created');
      return captured;
    },
  };
}
