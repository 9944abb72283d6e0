/**
 * What a scrape's formats ask of extraction, read once from its options: the `json` format
 * (a caller's schema, a named template, a prompt, or none of them: the page's own structured
 * data), `summary`, and `changeTracking` (its modes and tag). The parser reads the plan to
 * decide what to work out beside the page's other formats; the gateway and the frontier read
 * it to price a page (a model-read page costs PRICES.operatorModelPage more).
 *
 * The string `json` is the object `{type: 'json'}` with nothing set. When a format is listed
 * twice the first wins (the schema's `uniqueItems` cannot compare objects by meaning).
 */
import { PRICES } from '../../schemas/api/prices.js';
import type { ScrapeOptions } from '../../schemas/api/scrape-options.js';

export type ChangeMode = 'git-diff' | 'json';

export interface JsonRequest {
  readonly schema: Record<string, unknown> | null;
  readonly template: string | null;
  readonly prompt: string | null;
}

export interface ChangeRequest {
  readonly modes: readonly ChangeMode[];
  readonly tag: string | null;
}

export interface ExtractionPlan {
  readonly json: JsonRequest | null;
  readonly summary: boolean;
  readonly changeTracking: ChangeRequest | null;
}

type FormatItem = NonNullable<ScrapeOptions['formats']>[number];

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const text = (v: unknown): string | null => (typeof v === 'string' && v.trim() ? v : null);

function jsonRequest(item: FormatItem): JsonRequest | null {
  if (item === 'json') return { schema: null, template: null, prompt: null };
  if (!isObject(item) || item.type !== 'json') return null;
  return { schema: isObject(item.schema) ? item.schema : null, template: text(item.template), prompt: text(item.prompt) };
}

function changeRequest(item: FormatItem): ChangeRequest | null {
  if (!isObject(item) || item.type !== 'changeTracking') return null;
  const modes = Array.isArray(item.modes) ? item.modes.filter((m): m is ChangeMode => m === 'git-diff' || m === 'json') : [];
  return { modes: [...new Set(modes)], tag: text(item.tag) };
}

/** The extraction a scrape's formats ask for; null when they ask for none (the common case). */
export function extractionPlan(formats: readonly unknown[] | undefined): ExtractionPlan | null {
  let json: JsonRequest | null = null;
  let summary = false;
  let changeTracking: ChangeRequest | null = null;
  for (const item of (formats ?? []) as FormatItem[]) {
    json ??= jsonRequest(item);
    changeTracking ??= changeRequest(item);
    if (item === 'summary') summary = true;
  }
  return json || summary || changeTracking ? { json, summary, changeTracking } : null;
}

/** The plan asks for work a model may do (`json`, `summary`): what the operator's model is priced on. */
export function mayUseModel(plan: ExtractionPlan | null): boolean {
  return plan !== null && (plan.json !== null || plan.summary);
}

/**
 * Most credits extraction can add to a page of these options: the operator's model price when
 * one is configured and the formats may call it, else nothing (markup, page rules, extractive
 * summaries and change tracking are free; a caller's own model is free, rule 9).
 */
export function extractionEstimate(formats: readonly unknown[] | undefined, operatorModel: boolean): number {
  return operatorModel && mayUseModel(extractionPlan(formats)) ? PRICES.operatorModelPage.credits : 0;
}
