/**
 * The classifier actor: judgement. For monitors it runs each check (MonitorCheckRequested on
 * `monitorChecks`): reads the pages through the scrape path, compares each with its previous
 * snapshot using change tracking's module (pipeline/pages/changes.ts, with its noise
 * normalisation) and stores the results (check.ts, judge.ts). For mention watches it sorts
 * the posts a collection found into categories (MentionsFound on `mentionsFound`: the
 * offline classifier, or the operator's model), stores the new mentions and completes the
 * collection, or answers a test (mentions.ts).
 *
 * The pages are asked for like a gateway asks (a Requester of its own, reading the replies
 * topic in a group of its own), so a check reads exactly what POST /v1/scrape would. The
 * composition root registers it as `{role: 'classifier', serves: ['monitors', 'mentions'], …}`.
 */
import { keyRegistryFor } from '../../pipeline/keys/index.js';
import type { ActorDefinition } from '../../pipeline/runtime/pool.js';
import { lazyRequester } from '../../pipeline/runtime/request-reply.js';
import type { ServiceRuntime } from '../../pipeline/service/config.js';
import { handleCheckRequested } from './check.js';
import { handleMentionsFound } from './mentions.js';
import { operatorModel } from '../../pipeline/clients/models/index.js';

export { checkScrapeOptions, handleCheckRequested, worthNotifying, type CheckDeps, type MonitorCheckRequested } from './check.js';
export { judgePage, MAX_DIFF_CHARS, MAX_LINES, type Judgement } from './judge.js';
export { handleMentionsFound, sortMentions, type MentionDeps, type MentionsFound } from './mentions.js';

/** Most pages a monitor has (schemas/api/monitoring.ts: `url` and 50 `urls`). */
const MAX_PAGES = 51;

export function createClassifierActor(runtime: ServiceRuntime): ActorDefinition {
  const { config } = runtime;
  const keys = keyRegistryFor(config, runtime, { batchCharges: true });
  const log = runtime.log.child({ actor: 'classifier' });
  const requester = lazyRequester(runtime.events, log.child({ component: 'requester' }));
  // The operator's model sorts mentions when configured (a bad MODEL_* setting stops the process).
  const model = operatorModel(config);
  const rounds = Math.ceil(MAX_PAGES / config.monitorPageConcurrency);
  return {
    name: 'classifier',
    group: 'classifier',
    topics: ['monitorChecks', 'mentionsFound'],
    concurrency: config.poolConcurrency,
    // Every page of the largest monitor, a round of pages at a time, each up to its timeout.
    timeoutMs: rounds * (config.monitorPageTimeoutMs + 15_000) + 60_000,
    async close() {
      await requester.stop();
      keys.close();
    },
    handlers: {
      MonitorCheckRequested: {
        handle: (event, ctx) =>
          handleCheckRequested(
            event,
            {
              state: runtime.state,
              store: runtime.store,
              writer: runtime.writer,
              keys,
              requester: requester.get,
              pageTimeoutMs: config.monitorPageTimeoutMs,
              pageConcurrency: config.monitorPageConcurrency,
              log: ctx.log,
            },
            ctx.signal,
          ),
        replySource: 'classifier',
        // A manual run's deadline is how long its caller waits; the check runs to its end anyway.
        expires: false,
      },
      MentionsFound: {
        handle: (event, ctx) =>
          handleMentionsFound(event, { state: runtime.state, store: runtime.store, writer: runtime.writer, model, modelOptions: { config }, log: ctx.log }, ctx.signal),
        replySource: 'classifier',
      },
    },
  };
}
