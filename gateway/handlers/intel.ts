/**
 * The domain operations through the pipeline: POST /v1/domain, /v1/domain/report,
 * /v1/domain/history/snapshots and /v1/domain/screen. The gateway reads the domain name
 * first (pipeline/intel/names.ts: a URL and its bare domain are the same request; IP
 * addresses, single labels, `localhost`, over-long labels, URLs with credentials and
 * special-use or unknown top-level domains are a 422 with `detail`), then publishes an
 * IntelRequested and awaits the intel pool's Reply (actors/intel/).
 *
 * - The answer is the pool's data; per-section failures are in it (`errors`), never a 5xx.
 * - Charging: what the pool reports (schemas/api/prices.ts): a lookup 1 credit when a section
 *   answered; a screen 1 credit per name its registry answered for; a report its depth's flat
 *   price plus each snapshot beyond those included; a snapshot load 1 credit per year loaded
 *   that was not included (or past the included ones' 7 days) and not loaded before. The
 *   reservation is the most each can cost; a failed request is not charged.
 * - A snapshot load for a domain this key has no report on: 404 `not_found`.
 */
import type { DomainBody, DomainReportBody, DomainScreenBody, SnapshotsBody } from '../../schemas/api/intel.js';
import { readDomainName } from '../../pipeline/intel/names.js';
import { reportEstimate } from '../../pipeline/intel/report.js';
import { snapshotsEstimate } from '../../pipeline/intel/snapshots.js';
import { PRICES } from '../../schemas/api/prices.js';
import { PIPELINE_SLACK_MS, type Requester } from '../../pipeline/runtime/request-reply.js';
import type { IntelConfig } from '../../pipeline/intel/settings.js';
import type { HandlerContext, OperationHandler } from '../handler.js';
import { ValidationFailed } from '../replies.js';
import { askPipeline, replyResult } from './ask.js';

/** What a screen is given besides the time its names take. */
export const SCREEN_BASE_MS = 10_000;
/** The time a screen allows each name (the spec: "allow about 0.25 s per name"). */
export const SCREEN_PER_NAME_MS = 250;

/** Throws 422 when `input` is not a domain or a URL on one. */
export function checkDomain(input: string, loc: readonly (string | number)[] = ['body', 'domain']): void {
  const reading = readDomainName(input);
  if (!reading.ok) throw new ValidationFailed([{ loc: [...loc], msg: reading.message, type: `domain_${reading.problem}` }]);
}

/** The most a screen can cost: one credit per distinct valid name. */
export function screenEstimate(body: DomainScreenBody): number {
  const names = new Set<string>();
  for (const input of body.domains) {
    const reading = readDomainName(input);
    if (reading.ok) names.add(reading.name.domain);
  }
  return names.size * PRICES.screenedName.credits;
}

export { reportEstimate, snapshotsEstimate };

/** The waits of each operation, from the settings. */
export interface IntelWaits {
  readonly requestTimeoutMs: number;
  readonly config: Pick<IntelConfig, 'rdapTimeoutMs' | 'dnsTimeoutMs' | 'dnsTries' | 'domainReportBudgetMs' | 'domainPageTimeoutMs'>;
}

async function askIntel(requester: Requester, ctx: HandlerContext, kind: 'domain' | 'report' | 'snapshots' | 'screen', body: object, waitMs: number) {
  const reply = await askPipeline(requester, ctx, 'intelRequested', { kind, query: JSON.stringify(body) }, waitMs);
  return replyResult(reply);
}

export function domainHandler(requester: Requester, waits: IntelWaits): OperationHandler {
  const { config } = waits;
  const waitMs = Math.min(waits.requestTimeoutMs, Math.max(config.rdapTimeoutMs, config.dnsTimeoutMs * config.dnsTries) + PIPELINE_SLACK_MS);
  return {
    async handle(ctx) {
      const body = ctx.body as DomainBody;
      checkDomain(body.domain);
      return askIntel(requester, ctx, 'domain', body, waitMs);
    },
  };
}

export function domainScreenHandler(requester: Requester, waits: IntelWaits): OperationHandler {
  return {
    async handle(ctx) {
      const body = ctx.body as DomainScreenBody;
      const waitMs = Math.min(waits.requestTimeoutMs, SCREEN_BASE_MS + SCREEN_PER_NAME_MS * body.domains.length);
      return askIntel(requester, ctx, 'screen', body, waitMs);
    },
  };
}

export function domainReportHandler(requester: Requester, waits: IntelWaits): OperationHandler {
  const { config } = waits;
  // The budget for snapshots and linking pages, today's website (https, then http) and the trip.
  const waitMs = Math.min(waits.requestTimeoutMs, config.domainReportBudgetMs + 2 * config.domainPageTimeoutMs + 2 * PIPELINE_SLACK_MS);
  return {
    async handle(ctx) {
      const body = ctx.body as DomainReportBody;
      checkDomain(body.domain);
      return askIntel(requester, ctx, 'report', body, waitMs);
    },
  };
}

export function domainSnapshotsHandler(requester: Requester, waits: IntelWaits): OperationHandler {
  const { config } = waits;
  const waitMs = Math.min(waits.requestTimeoutMs, config.domainReportBudgetMs + config.domainPageTimeoutMs + PIPELINE_SLACK_MS);
  return {
    async handle(ctx) {
      const body = ctx.body as SnapshotsBody;
      checkDomain(body.domain);
      return askIntel(requester, ctx, 'snapshots', body, waitMs);
    },
  };
}
