/**
 * The extractor actor: the pool where model calls run (issue 15). It reads ExtractRequested
 * (`extractRequested`), which the parser writes for a page whose `json` fields markup and
 * page rules left empty, whose `prompt` needs a model, or whose summary a model writes, and
 * finishes the page (handler.ts). Its own topic and pool (EXTRACT_CONCURRENCY calls at once,
 * each bounded by MODEL_TIMEOUT_MS) keep seconds-long model calls out of the parser's slots.
 * The composition root registers it as `{role: 'extractor', serves: ['extract'], …}`.
 */
import type { ActorDefinition, EventHandling } from '../../pipeline/runtime/pool.js';
import type { ServiceRuntime } from '../../pipeline/service/config.js';
import { jobPageFailed } from '../../pipeline/jobs/pages.js';
import { serverWebhookSecret } from '../../pipeline/webhooks/secret.js';
import { operatorModel } from '../../pipeline/clients/models/index.js';
import { handleExtractRequested, type ExtractorDeps } from './handler.js';

export { handleExtractRequested, modelFor, type ExtractorDeps, type ExtractRequested } from './handler.js';

/** ExtractRequested as the pool runs it: a failed page of a job is reported to the frontier. */
export function extractRequestedHandling(deps: ExtractorDeps): EventHandling<'ExtractRequested'> {
  return {
    handle: (event, ctx) => handleExtractRequested(event, { ...deps, log: ctx.log }, ctx.signal),
    failed: (event, code, message) => jobPageFailed(event, code, message, event.statusCode),
    replySource: null,
  };
}

export function createExtractorActor(runtime: ServiceRuntime, options: { readonly fetch?: typeof fetch } = {}): ActorDefinition {
  const { config } = runtime;
  // A model configured half-way (openai without MODEL_API_KEY, openai-compatible without
  // MODEL_BASE_URL or MODEL_NAME) stops the process at start, as any bad setting does.
  operatorModel(config);
  const deps: ExtractorDeps = {
    config,
    serverSecret: serverWebhookSecret(config),
    store: runtime.store,
    writer: runtime.writer,
    log: runtime.log,
    ...(options.fetch ? { fetch: options.fetch } : {}),
  };
  return {
    name: 'extractor',
    group: 'extractor',
    topics: ['extractRequested'],
    concurrency: config.extractConcurrency,
    // Two calls (json and summary), each with its retries inside MODEL_TIMEOUT_MS, and the finish.
    timeoutMs: config.modelTimeoutMs * 2 + 30_000,
    handlers: { ExtractRequested: extractRequestedHandling(deps) },
  };
}
