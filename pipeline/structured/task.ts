/**
 * The work a page's extraction leaves for a model, as the parser hands it to the extractor
 * pool on ExtractRequested (`task`, JSON): the `json` target with what markup and page rules
 * filled and what is still missing, the prompt, the extractive summary a model may replace,
 * and what finishing the page involves (change tracking, dropping the markdown the parser
 * made only for extraction). Plain data: it crosses a topic.
 */
import type { ChangeRequest } from './plan.js';
import type { Filled } from './fill.js';

/** What the `json` format is filled against. */
export type JsonTarget =
  | { readonly kind: 'template'; readonly name: string }
  | { readonly kind: 'schema'; readonly schema: Record<string, unknown> }
  /** `prompt` alone: a model answers free-form (an object of its choosing). */
  | { readonly kind: 'prompt' };

export interface JsonTask {
  readonly target: JsonTarget;
  readonly prompt: string | null;
  /** What markup and page rules filled (for `prompt` alone: nothing). */
  readonly filled: Filled;
}

export interface SummaryTask {
  /** The extractive summary, kept when the model fails. */
  readonly extractive: string;
  readonly language: string | null;
}

/** What finishing a page involves, whoever finishes it. */
export interface FinishPlan {
  readonly changeTracking: ChangeRequest | null;
  /** When the page was requested (epoch ms): the time its change-tracking snapshot is filed under. */
  readonly scrapedAtMs: number;
  /** The markdown was made only for extraction: it leaves the answer. */
  readonly dropMarkdown: boolean;
}

export interface ExtractTask {
  readonly json: JsonTask | null;
  readonly summary: SummaryTask | null;
  readonly finish: FinishPlan;
}

export function encodeTask(task: ExtractTask): string {
  return JSON.stringify(task);
}

/** The task of an ExtractRequested; null when its JSON is not a task (a malformed event). */
export function decodeTask(json: string): ExtractTask | null {
  try {
    const value = JSON.parse(json) as Partial<ExtractTask> | null;
    if (!value || typeof value !== 'object' || !value.finish || typeof value.finish !== 'object') return null;
    return { json: value.json ?? null, summary: value.summary ?? null, finish: value.finish };
  } catch {
    return null;
  }
}
