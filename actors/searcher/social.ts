/**
 * A call of a social endpoint (SocialRequested, POST /v1/social/{platform}/{endpoint}): the
 * searcher asks the platform through its client (social-endpoints.ts) and answers the reply
 * topic.
 *
 * - **The endpoint** is the catalog's row (schemas/api/social.ts); an unknown one (the gateway
 *   refuses those: a hand-made event) is `social_endpoint_unknown`, an input the event
 *   contract does not allow `bad_request`.
 * - **Not configured**: a platform without the credentials it needs answers
 *   `platform_not_configured` naming the missing settings, before anything is asked.
 * - **Time**: each call within MENTION_PLATFORM_TIMEOUT_MS and the event's deadline (less the
 *   reply's margin); past it, `platform_timeout`.
 * - **Failures**: what the platform says does not exist is `platform_not_found`; its rate
 *   limit or spent quota `platform_rate_limited`, the Reply's data `{retryAfterMs}` when it said
 *   how long to wait (the gateway's Retry-After); a timeout `platform_timeout`; anything else it
 *   does (5xx, refused credentials, an unreadable answer) `platform_failed`. Nothing is charged.
 * - **Charged** the row's price (PRICES.socialCall) only when data came back: a post or a
 *   comment, a profile, a repository; an empty answer costs nothing (charging rule 10).
 */
import { isServiceError } from '../../pipeline/clients/service-http.js';
import { NotOnPlatform } from '../../pipeline/clients/social/types.js';
import type { PlatformClients } from '../../pipeline/mentions/connectors.js';
import { serviceCode } from '../../pipeline/runtime/errors.js';
import { parseJsonObject } from '../../pipeline/runtime/json.js';
import type { Logger } from '../../pipeline/runtime/log.js';
import type { Outcome } from '../../pipeline/runtime/pool.js';
import { replyTo } from '../../pipeline/runtime/request-reply.js';
import { PRICES } from '../../schemas/api/prices.js';
import { socialEndpoint, type SocialEndpointId } from '../../schemas/api/social.js';
import type { ErrorCode } from '../../schemas/errors.js';
import type { EventValue } from '../../schemas/events/index.js';
import { REPLY_MARGIN_MS } from './handler.js';
import { InputError, RUNNERS } from './social-endpoints.js';

export type SocialRequested = EventValue<'SocialRequested'>;

export interface SocialDeps {
  readonly clients: PlatformClients;
  /** MENTION_PLATFORM_TIMEOUT_MS: the longest one call may take. */
  readonly platformTimeoutMs: number;
  readonly log: Logger;
  readonly now?: () => number;
}

function failed(event: SocialRequested, code: ErrorCode, message: string, log: Logger, retryAfterMs: number | null = null): Outcome {
  log.info({ platform: event.platform, endpoint: event.endpoint, code }, `social call failed: ${message}`);
  const data = retryAfterMs !== null ? JSON.stringify({ retryAfterMs }) : null;
  return { kind: 'ack', emit: replyTo(event, { ok: false, data, errorCode: code, errorMessage: message, credits: 0, source: null }, log) };
}

/** The platform's failure as the error a caller can act on. */
function platformFailure(event: SocialRequested, error: unknown, timedOut: boolean, timeoutMs: number, log: Logger): Outcome | null {
  if (error instanceof NotOnPlatform) return failed(event, 'platform_not_found', error.message, log);
  if (error instanceof InputError) return failed(event, 'bad_request', error.message, log);
  if (timedOut) return failed(event, 'platform_timeout', `${event.platform} did not answer within ${timeoutMs} ms`, log);
  if (!isServiceError(error)) return null;
  if (error.kind === 'rate_limited') return failed(event, 'platform_rate_limited', error.message, log, error.retryAfterMs);
  if (error.kind === 'timeout') return failed(event, 'platform_timeout', error.message, log);
  const why = error.kind === 'rejected' ? ' (the credentials or the platform refused the call)' : error.kind === 'unreadable' ? ' (its answer could not be read)' : '';
  return failed(event, 'platform_failed', `${error.message}${why}`, log);
}

export async function handleSocialRequested(event: SocialRequested, deps: SocialDeps, signal: AbortSignal): Promise<Outcome> {
  const log = deps.log.child({ requestId: event.requestId });
  const now = deps.now ?? Date.now;
  const row = socialEndpoint(event.platform, event.endpoint);
  if (!row) return failed(event, 'social_endpoint_unknown', `the social catalog has no endpoint ${event.platform}/${event.endpoint}`, log);
  const input = parseJsonObject(event.input);
  if (!input) return failed(event, 'bad_request', 'the input is not a JSON object', log);
  const client = deps.clients[row.platform];
  if (client.notConfigured !== null) return failed(event, 'platform_not_configured', `${row.platform} is not configured on this instance: ${client.notConfigured}`, log);
  const timeoutMs = Math.max(1, Math.min(deps.platformTimeoutMs, event.deadlineMs - REPLY_MARGIN_MS - now()));
  const bounded = AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)]);
  try {
    const run = RUNNERS[`${row.platform}/${row.endpoint}` as SocialEndpointId];
    const answer = await run(input, { clients: deps.clients, tenant: event.tenant, read: { timeoutMs, signal: bounded } });
    const credits = answer.found > 0 ? PRICES[row.price].credits : 0;
    log.info({ platform: row.platform, endpoint: row.endpoint, found: answer.found, credits }, 'social answered');
    const data = JSON.stringify({ platform: row.platform, endpoint: row.endpoint, ...answer.data });
    return { kind: 'ack', emit: replyTo(event, { ok: true, data, errorCode: null, errorMessage: null, credits, source: null }, log) };
  } catch (error) {
    if (signal.aborted) return { kind: 'retry', code: 'service_unavailable', message: 'the social call was interrupted' };
    const outcome = platformFailure(event, error, bounded.aborted, timeoutMs, log);
    if (outcome) return outcome;
    const message = error instanceof Error ? error.message : String(error);
    log.warn({ platform: row.platform, endpoint: row.endpoint }, `social call failed: ${message}`);
    return { kind: 'fail', code: serviceCode(error), message };
  }
}
