/**
 * The social catalog (schemas/api/social.ts) at the edge:
 *
 * - GET /v1/social (free): every platform with its endpoints, each with its path, summary,
 *   what its answer holds, its inputs as JSON Schema (the very schema a call is validated
 *   with, and the OpenAPI document's component) and its price key and credits; per platform,
 *   whether this instance has the credentials it needs (`configured`, and `missing`: the
 *   settings it lacks, pipeline/mentions/connectors.ts platformReadiness).
 * - POST /v1/social/{platform}/{endpoint}: before credits are reserved (`check`), an unknown
 *   platform is 404 `social_platform_unknown`, an unknown endpoint 404 `social_endpoint_unknown`
 *   (the message lists the platform's endpoints), and the body is validated against the
 *   endpoint's input by the gateway's Ajv path (gateway/validation.ts: 422 `detail`, defaults
 *   filled in). A URL the call names (`feeds/read`) passes the SSRF guard (403 `url_blocked`).
 *   The call is then a SocialRequested answered by the searcher
 *   (actors/searcher/social.ts), whose data is the answer; a failure is its error
 *   (`platform_not_configured`, `platform_not_found`, `platform_rate_limited` with
 *   Retry-After, `platform_failed`, `platform_timeout`), and costs nothing.
 * - Charging: the endpoint's price is reserved, and charged only when data came back (the
 *   reply's credits: rule 10).
 */
import type { ValidateFunction } from 'ajv';
import { PRICES } from '../../schemas/api/prices.js';
import { isSocialPlatform, SOCIAL_ENDPOINTS, SOCIAL_PLATFORMS, socialEndpoint, socialEndpointJson, type SocialEndpoint } from '../../schemas/api/social.js';
import { isErrorCode } from '../../schemas/errors.js';
import { platformReadiness } from '../../pipeline/mentions/connectors.js';
import { AppError } from '../../pipeline/runtime/errors.js';
import type { NetGuard } from '../../pipeline/runtime/net/guard.js';
import { parseJsonObject } from '../../pipeline/runtime/json.js';
import type { ReplyValue, Requester } from '../../pipeline/runtime/request-reply.js';
import type { HandlerContext, OperationHandler } from '../handler.js';
import { ValidationFailed } from '../replies.js';
import { compile, toDetails } from '../validation.js';
import { askPipeline } from './ask.js';

export type ReadinessConfig = Parameters<typeof platformReadiness>[0];

/** The catalog's data: per platform, its readiness and its endpoints. */
export function socialCatalog(config: ReadinessConfig): Record<string, unknown> {
  const readiness = platformReadiness(config);
  return {
    platforms: SOCIAL_PLATFORMS.map((platform) => ({
      platform,
      configured: readiness[platform] === null,
      missing: readiness[platform],
      endpoints: SOCIAL_ENDPOINTS.filter((e) => e.platform === platform).map(socialEndpointJson),
    })),
  };
}

export function socialCatalogHandler(config: ReadinessConfig): OperationHandler {
  // The settings are read once at start: the answer is the same bytes every time.
  const dataJson = JSON.stringify(socialCatalog(config));
  return { handle: () => Promise.resolve({ dataJson }) };
}

/** The catalog row a call names; 404 with the catalog's own codes otherwise. */
export function socialRow(params: Readonly<Record<string, string>>): SocialEndpoint {
  const platform = params.platform ?? '';
  const endpoint = params.endpoint ?? '';
  if (!isSocialPlatform(platform)) throw new AppError('social_platform_unknown', `no social platform ${JSON.stringify(platform)}; the platforms are ${SOCIAL_PLATFORMS.join(', ')} (GET /v1/social)`);
  const row = socialEndpoint(platform, endpoint);
  if (!row) {
    const names = SOCIAL_ENDPOINTS.filter((e) => e.platform === platform).map((e) => e.endpoint);
    throw new AppError('social_endpoint_unknown', `${platform} has no endpoint ${JSON.stringify(endpoint)}; its endpoints are ${names.join(', ')} (GET /v1/social)`);
  }
  return row;
}

/** Most a call can cost: its endpoint's price (an unknown endpoint is refused before any reservation). */
export function socialEstimate(ctx: Pick<HandlerContext, 'params'>): number {
  const row = socialEndpoint(ctx.params.platform ?? '', ctx.params.endpoint ?? '');
  return row ? PRICES[row.price].credits : 0;
}

/** A failed call's Reply as the error it is; a rate limit carries the platform's wait as Retry-After. */
function socialFailure(reply: ReplyValue): AppError {
  const code = reply.errorCode && isErrorCode(reply.errorCode) ? reply.errorCode : 'upstream_error';
  const wait = reply.data ? parseJsonObject(reply.data)?.retryAfterMs : undefined;
  const headers: Record<string, string> = code === 'platform_rate_limited' && typeof wait === 'number' ? { 'retry-after': String(Math.max(1, Math.ceil(wait / 1000))) } : {};
  return new AppError(code, reply.errorMessage ?? 'the searcher reported a failure', { headers });
}

/**
 * `guard`: FETCH_ALLOW_PRIVATE's SSRF guard, which the URL a call names (`feeds/read`) passes
 * first, as a watch's feeds do: 403 `url_blocked` for a private address, not charged.
 */
export function socialRunHandler(requester: Requester, requestTimeoutMs: number, guard: NetGuard): OperationHandler {
  // Each endpoint's validator, compiled once from its row's input schema.
  const validators = new Map<SocialEndpoint, ValidateFunction>(SOCIAL_ENDPOINTS.map((e) => [e, compile('body', e.input)]));
  return {
    check(ctx) {
      const validate = validators.get(socialRow(ctx.params)) as ValidateFunction;
      if (!validate(ctx.body)) throw new ValidationFailed(toDetails(validate.errors, 'body', ctx.body));
    },
    async handle(ctx) {
      const row = socialRow(ctx.params);
      const url = (ctx.body as { url?: unknown }).url;
      if (typeof url === 'string') await guard.check(url);
      const reply = await askPipeline(requester, ctx, 'socialRequested', { platform: row.platform, endpoint: row.endpoint, input: JSON.stringify(ctx.body) }, requestTimeoutMs);
      if (!reply.ok) throw socialFailure(reply);
      return { dataJson: reply.data ?? '{}', credits: reply.credits };
    },
  };
}
