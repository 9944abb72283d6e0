/**
 * The extractor's pure handler: one ExtractRequested in (a page the parser read whose answer
 * still needs a model), an Outcome out. Model calls take seconds, so they run here, in their
 * own pool, never in the parser's slots.
 *
 * - The model: the caller's own (the event's `sealedModel`, opened with the server secret,
 *   used for this call and dropped), else the operator's (MODEL_*). Neither (the operator's
 *   configuration changed in between): the page is finished with what markup gave, and says so.
 * - `json` with a template or schema: the model is asked for the missing fields only (their
 *   part of the schema), and its answer is merged without overwriting markup or page values;
 *   every value is validated against the schema before it is kept (pipeline/structured/fill.ts).
 *   With `prompt` alone, the model answers the whole object.
 * - `summary`: an abstractive summary in the page's language replaces the extractive one.
 * - Failures: a caller's key the provider rejects fails the page `model_key_rejected` (the
 *   caller's error, 400, nothing charged). Any other model failure (429 after retries, 5xx,
 *   529, a timeout, output that is not JSON or breaks the schema twice) keeps the page's own
 *   answer and names the failure in `warning`; for `prompt` alone there is no own answer, and
 *   the page fails with the model's code.
 * - Charging: the operator's model adds PRICES.operatorModelPage to the page when it answered;
 *   a caller's own model adds nothing (rule 9).
 * - Tokens: what the model's answered calls used is written for the key as the page is settled
 *   (pipeline/structured/model-usage.ts), whoever's model it was.
 * - The page is finished as the parser would have (pipeline/structured/finish.ts).
 */
import { PRICES } from '../../schemas/api/prices.js';
import type { EventValue } from '../../schemas/events/index.js';
import { AppError, serviceCode } from '../../pipeline/runtime/errors.js';
import type { Logger } from '../../pipeline/runtime/log.js';
import type { Config } from '../../pipeline/service/config.js';
import type { Outcome } from '../../pipeline/runtime/pool.js';
import { parseJsonObject } from '../../pipeline/runtime/json.js';
import { finishPage, type FinishDeps } from '../../pipeline/structured/finish.js';
import { schemaOfTarget, writeJson, writeModel, writeSummary } from '../../pipeline/structured/answer.js';
import { mergeModelAnswer, schemaForMissing } from '../../pipeline/structured/fill.js';
import { decodeTask, type JsonTask, type SummaryTask } from '../../pipeline/structured/task.js';
import { recordModelUsage } from '../../pipeline/structured/model-usage.js';
import { callerModel, generateStructured, generateText, operatorModel, type ModelChoice } from '../../pipeline/clients/models/index.js';
import { openSealed } from '../../pipeline/runtime/seal.js';
import { extractionPrompt, summaryPrompt, PROMPT_ONLY_SCHEMA } from './prompts.js';

export type ExtractRequested = EventValue<'ExtractRequested'>;

export interface ExtractorDeps extends FinishDeps {
  readonly config: Config;
  /** The server secret callers' model keys are sealed with (pipeline/webhooks/secret.ts). */
  readonly serverSecret: string;
  readonly log: Logger;
  readonly fetch?: typeof fetch;
}

/** The model for this page: the caller's sealed one, else the operator's, else none. */
export function modelFor(event: Pick<ExtractRequested, 'sealedModel'>, deps: Pick<ExtractorDeps, 'config' | 'serverSecret'>): ModelChoice | null {
  if (!event.sealedModel) return operatorModel(deps.config);
  const opened = parseJsonObject<{ provider: 'openai' | 'anthropic'; apiKey: string; name?: string | null }>(openSealed(deps.serverSecret, event.sealedModel));
  if (!opened || typeof opened.apiKey !== 'string') throw new AppError('bad_request', 'the sealed model of this request could not be read');
  return callerModel(deps.config, opened);
}

interface Step {
  readonly used: boolean;
  readonly warnings: string[];
  /** The tokens the step's call used (none when it failed). */
  readonly inputTokens: number;
  readonly outputTokens: number;
}

const spent = (usage: { inputTokens: number; outputTokens: number }) => ({ inputTokens: usage.inputTokens, outputTokens: usage.outputTokens });

const failureNote = (what: string, error: unknown) => `${what} (${serviceCode(error)}): ${error instanceof Error ? error.message : String(error)}`;

function isFatal(error: unknown, model: ModelChoice): boolean {
  return model.owner === 'caller' && serviceCode(error) === 'model_key_rejected';
}

async function fillJson(task: JsonTask, document: Record<string, unknown>, text: string, model: ModelChoice, deps: ExtractorDeps, signal: AbortSignal): Promise<Step> {
  const schema = schemaOfTarget(task.target);
  const options = { config: deps.config, signal, log: deps.log, ...(deps.fetch ? { fetch: deps.fetch } : {}) };
  if (!schema) {
    const result = await generateStructured(model, { ...extractionPrompt(task.prompt, text, null), schema: PROMPT_ONLY_SCHEMA, schemaName: 'extraction' }, options);
    const filled = { data: result.object, sources: Object.fromEntries(Object.keys(result.object).map((k) => [k, 'model' as const])), missing: [], warnings: [] };
    return { used: true, warnings: [...writeJson(document, task.target, filled), ...result.warnings], ...spent(result.usage) };
  }
  const missing = task.filled.missing;
  const ask = missing.length ? schemaForMissing(schema, missing) : schema;
  const result = await generateStructured(model, { ...extractionPrompt(task.prompt, text, missing.length ? missing : null), schema: ask, schemaName: 'extraction' }, options);
  const merged = mergeModelAnswer(task.filled, result.object, schema);
  return { used: true, warnings: [...writeJson(document, task.target, merged), ...result.warnings], ...spent(result.usage) };
}

async function summarize(task: SummaryTask, document: Record<string, unknown>, text: string, model: ModelChoice, deps: ExtractorDeps, signal: AbortSignal): Promise<Step> {
  const result = await generateText(model, summaryPrompt(text, task.language), { config: deps.config, signal, log: deps.log, ...(deps.fetch ? { fetch: deps.fetch } : {}) });
  const summary = result.text.trim();
  if (!summary) return { used: true, warnings: ['the model answered an empty summary: the extractive one is kept'], ...spent(result.usage) };
  writeSummary(document, summary, 'model');
  return { used: true, warnings: result.warnings, ...spent(result.usage) };
}

/** Runs one model step; a failure that is not the caller's becomes a warning (or, for `fatal`, the page's failure). */
async function attempt(step: () => Promise<Step>, what: string, model: ModelChoice, fatal: boolean): Promise<Step> {
  try {
    return await step();
  } catch (error) {
    if (fatal || isFatal(error, model)) throw error;
    return { used: false, warnings: [failureNote(what, error)], inputTokens: 0, outputTokens: 0 };
  }
}

function splitWarnings(document: Record<string, unknown>): string[] {
  const warning = document.warning;
  delete document.warning;
  return typeof warning === 'string' && warning ? warning.split('; ') : [];
}

export async function handleExtractRequested(event: ExtractRequested, deps: ExtractorDeps, signal: AbortSignal): Promise<Outcome> {
  const task = decodeTask(event.task);
  const document = parseJsonObject<Record<string, unknown>>(event.document);
  if (!task || !document) return { kind: 'fail', code: 'event_undecodable', message: 'the extraction task or document of this event is not JSON' };
  const warnings = splitWarnings(document);
  let model: ModelChoice | null;
  try {
    model = modelFor(event, deps);
  } catch (error) {
    return { kind: 'fail', code: serviceCode(error), message: (error as Error).message };
  }
  let used = false;
  const tokens = { inputTokens: 0, outputTokens: 0 };
  if (!model) {
    warnings.push('no model is configured any more: answered from the page\'s markup and page rules only');
  } else {
    try {
      const chosen = model;
      const steps: Step[] = [];
      if (task.json) steps.push(await attempt(() => fillJson(task.json as JsonTask, document, event.text, chosen, deps, signal), 'the model could not fill the json', chosen, task.json.target.kind === 'prompt'));
      if (task.summary) steps.push(await attempt(() => summarize(task.summary as SummaryTask, document, event.text, chosen, deps, signal), 'the model could not summarise the page; the extractive summary is kept', chosen, false));
      for (const step of steps) {
        warnings.push(...step.warnings);
        tokens.inputTokens += step.inputTokens;
        tokens.outputTokens += step.outputTokens;
      }
      used = steps.some((s) => s.used);
      if (used) writeModel(document, `${chosen.provider}:${chosen.name}`);
    } catch (error) {
      return { kind: 'fail', code: serviceCode(error), message: error instanceof Error ? error.message : String(error) };
    }
  }
  const credits = event.credits + (used && model?.owner === 'operator' ? PRICES.operatorModelPage.credits : PRICES.callerModelPage.credits);
  const page = { ...event, credits };
  // The tokens are written beside the page's finish, not after it: the batch writer's wait is shared.
  const usage = model
    ? recordModelUsage(deps.writer, { tenant: event.tenant, atMs: event.createdAtMs, requestId: event.requestId, jobId: event.jobId, owner: model.owner, model: `${model.provider}:${model.name}`, ...tokens })
    : Promise.resolve();
  const [emit] = await Promise.all([finishPage({ page, document, warnings, plan: task.finish, title: event.title, contentHash: event.contentHash, links: event.links }, deps), usage]);
  return { kind: 'ack', emit };
}
