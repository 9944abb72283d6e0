/**
 * What an actor pool is to the composition root (main.ts), which lists this build's actors and
 * starts them by role. An actor never imports another actor; each is a folder with a pure
 * handler and a factory.
 * `serves` names the capabilities (schemas/capabilities.ts) this actor brings to the build: the
 * gateway serves an operation through the pipeline only when the build's actors serve every
 * capability its row in the operation table needs (gateway/wiring.ts), and answers 501
 * `not_implemented` otherwise.
 */
import type { Capability } from '../schemas/capabilities.js';
import type { Role } from '../schemas/topics.js';
import type { ActorDefinition } from '../pipeline/runtime/pool.js';
import type { ServiceRuntime } from '../pipeline/service/config.js';

/** What an actor may know of the build it runs in: the capabilities its actors serve (all roles). */
export interface ActorBuild {
  readonly serves: ReadonlySet<Capability>;
}

export interface ActorSpec {
  readonly role: Exclude<Role, 'gateway'>;
  readonly serves?: readonly Capability[];
  /**
   * Builds the pool's actor. It may load the actor's code first (main.ts imports each actor when
   * its pool starts, so a process that runs one pool, or only the command line, loads only that).
   */
  create(runtime: ServiceRuntime, build: ActorBuild): ActorDefinition | Promise<ActorDefinition>;
}
