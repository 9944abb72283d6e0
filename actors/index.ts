/**
 * What an actor pool is to the composition root (main.ts), which lists this build's actors and
 * starts them by role. An actor never imports another actor; each is a folder with a pure
 * handler and a factory.
 * `serves` names the API operations whose answer this actor completes: the gateway serves an
 * operation through the pipeline only when the build has the actors for it, and answers 501
 * `not_implemented` otherwise.
 */
import type { Role } from '../schemas/topics.js';
import type { ActorDefinition } from '../pipeline/runtime/pool.js';
import type { Runtime } from '../pipeline/runtime/runtime.js';

/** What an actor may know of the build it runs in: the operations its actors serve (all roles). */
export interface ActorBuild {
  readonly serves: ReadonlySet<string>;
}

export interface ActorSpec {
  readonly role: Exclude<Role, 'gateway'>;
  readonly serves?: readonly string[];
  create(runtime: Runtime, build: ActorBuild): ActorDefinition;
}
