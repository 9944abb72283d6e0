/**
 * The notifier actor: calls webhooks. It reads JobEvent (`jobEvents`, its own consumer
 * group beside the frontier's) and, for a crawl or batch started with a `webhook`, POSTs
 * `crawl.*` / `batch_scrape.*` events to it; MonitorChecked (`monitorEvents`), a monitor's
 * `monitor.check.completed` (monitor.ts); and MentionsStored (`mentionEvents`), a watch's
 * `mentions.found` (mentions.ts). Each signed with the key's secret, retried with
 * backoff, each attempt recorded in `webhook_deliveries` (handler.ts, deliver.ts, post.ts).
 * Every request goes through the SSRF guard (FETCH_ALLOW_PRIVATE) and its guarded agents.
 * The composition root registers it as `{role: 'notifier', serves: ['webhooks'], …}`; the
 * gateway accepts job webhooks only in a build that has it.
 */
import { guardedAgents } from '../../pipeline/runtime/net/agents.js';
import { NetGuard } from '../../pipeline/runtime/net/guard.js';
import type { ActorDefinition } from '../../pipeline/runtime/pool.js';
import type { ServiceRuntime } from '../../pipeline/service/config.js';
import { keyWebhookSecret } from '../../pipeline/webhooks/signing.js';
import { serverWebhookSecret } from '../../pipeline/webhooks/secret.js';
import type { RetryPolicy } from './deliver.js';
import { handleJobEvent } from './handler.js';
import { handleMonitorChecked } from './monitor.js';
import { handleMentionsStored } from './mentions.js';

export { deliver, retriableAnswer, type Delivery, type DeliveryResult, type RetryPolicy } from './deliver.js';
export { webhookBody } from './handler.js';
export { monitorWebhookBody, MONITOR_EVENT } from './monitor.js';
export { mentionsWebhookBody, MENTIONS_EVENT } from './mentions.js';

export interface NotifierActorOptions {
  readonly allowCidrs?: readonly string[];
}

/** The longest one delivery can take: every attempt timing out and every backoff at its ceiling. */
export function deliveryBudgetMs(policy: RetryPolicy): number {
  let total = policy.attempts * policy.timeoutMs;
  for (let n = 1; n < policy.attempts; n++) total += Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (n - 1));
  return total;
}

export function createNotifierActor(runtime: ServiceRuntime, options: NotifierActorOptions = {}): ActorDefinition {
  const { config } = runtime;
  const guard = new NetGuard({ allowPrivate: config.fetchAllowPrivate, allowCidrs: options.allowCidrs ?? [] });
  const agents = guardedAgents(guard, { keepAlive: true, maxSockets: 64 });
  // Read (or generated) once at start: a DATA_DIR that cannot hold it stops the process now.
  const serverSecret = serverWebhookSecret(config);
  if (config.webhookSecret === null && config.state === 'redis') {
    runtime.log.warn(
      { actor: 'notifier' },
      'WEBHOOK_SECRET is unset: webhook signing secrets derive from this process\'s DATA_DIR/webhook-secret; set WEBHOOK_SECRET the same on every notifier and where the keys CLI runs',
    );
  }
  const policy: RetryPolicy = {
    attempts: config.webhookAttempts,
    baseDelayMs: config.webhookRetryBaseMs,
    maxDelayMs: config.webhookRetryMaxMs,
    timeoutMs: config.webhookTimeoutMs,
  };
  const secrets = new Map<string, string>();
  const secretFor = (keyId: string) => {
    let secret = secrets.get(keyId);
    if (!secret) secrets.set(keyId, (secret = keyWebhookSecret(serverSecret, keyId)));
    return secret;
  };
  return {
    name: 'notifier',
    group: 'notifier',
    topics: ['jobEvents', 'monitorEvents', 'mentionEvents'],
    concurrency: config.poolConcurrency,
    // A delivery's retries run inside one attempt of the pool (its own retries would send twice).
    timeoutMs: deliveryBudgetMs(policy) + 30_000,
    async close() {
      agents.destroy();
    },
    handlers: {
      JobEvent: (event, ctx) =>
        handleJobEvent(event, { state: runtime.state, store: runtime.store, writer: runtime.writer, guard, agents, policy, secretFor, log: ctx.log }, ctx.signal),
      MonitorChecked: (event, ctx) =>
        handleMonitorChecked(event, { store: runtime.store, writer: runtime.writer, guard, agents, policy, secretFor, serverSecret, log: ctx.log }, ctx.signal),
      MentionsStored: (event, ctx) =>
        handleMentionsStored(event, { store: runtime.store, writer: runtime.writer, guard, agents, policy, secretFor, serverSecret, log: ctx.log }, ctx.signal),
    },
  };
}
