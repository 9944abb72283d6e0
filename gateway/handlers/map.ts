/**
 * POST /v1/map through the pipeline: the gateway publishes a MapRequested event and awaits
 * the frontier's Reply, whose data is `{links: [{url, title?, description?}]}` and, when the
 * time budget cut the discovery short, `warning` (actors/frontier/map-handler.ts). A map is one
 * flat charge (schemas/api/prices.ts PRICES.map, the spec's charging rule 5), reserved before
 * (the operation's price, gateway/wiring.ts) and charged after; a failed map is not charged.
 */
import { MAP_TIME_BUDGET_MS, type MapBody } from '../../schemas/api/page-reading.js';
import { PIPELINE_SLACK_MS, type Requester } from '../../pipeline/runtime/request-reply.js';
import type { OperationHandler } from '../handler.js';
import { askPipeline, replyResult } from './ask.js';

export function mapHandler(requester: Requester, requestTimeoutMs: number): OperationHandler {
  return {
    async handle(ctx) {
      const { url, ...options } = ctx.body as MapBody;
      const timeoutMs = Math.min(requestTimeoutMs, MAP_TIME_BUDGET_MS + PIPELINE_SLACK_MS);
      const reply = await askPipeline(requester, ctx, 'mapRequested', { url, options: JSON.stringify(options) }, timeoutMs);
      return replyResult(reply);
    },
  };
}
