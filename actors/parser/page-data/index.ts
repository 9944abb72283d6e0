/**
 * Extraction in the parser: what a page's formats (`json`, `summary`, `changeTracking`) get
 * from the page itself, at no model cost, and what is left for a model.
 *
 * - The page is read once, untouched, while its document is built (buildDocument's `read`
 *   hook): its structured markup (markup/: JSON-LD, microdata, RDFa, Open Graph, meta tags)
 *   and its visible facts (rules/: headline, byline, dates, prices, ratings, addresses).
 * - `json`: a template or the caller's schema is filled from markup first, then page rules
 *   (pipeline/structured/fill.ts); fields still empty go to a model when one is available (the
 *   caller's own on POST /v1/extract, else the operator's MODEL_*), else they stay out and are
 *   named in `warning`. With neither schema nor template, `prompt` needs a model (none:
 *   `model_required`), and with no prompt either the answer is the page's own structured data,
 *   `{items: [...]}` (schema.org objects), markup only.
 * - `summary`: an extractive summary of the main content (summary.ts) unless a model is
 *   available, which writes an abstractive one (the extractive one is kept if it fails).
 * - Non-HTML pages (PDF, DOCX, text) have no markup: page rules see nothing, the model (or the
 *   extractive summary) reads their text.
 *
 * Returns the answer so far and the model's task, if any (the parser hands it to the
 * extractor pool on ExtractRequested; otherwise it finishes the page itself).
 */
import type { CheerioAPI } from 'cheerio';
import { findTemplate } from '../../../schemas/templates.js';
import { AppError } from '../../../pipeline/runtime/errors.js';
import { fillFromThings, normalizeCallerSchema, type ExtractTarget, type Filled } from '../../../pipeline/structured/fill.js';
import { writeJson, writeSummary } from '../../../pipeline/structured/answer.js';
import type { ExtractionPlan, JsonRequest } from '../../../pipeline/structured/plan.js';
import type { ExtractTask, FinishPlan, JsonTarget, JsonTask, SummaryTask } from '../../../pipeline/structured/task.js';
import type { Thing } from '../../../pipeline/structured/types.js';
import { readStructuredData, thingToJson } from '../../../pipeline/structured/markup/index.js';
import { readPageFacts } from './rules/index.js';
import { extractiveSummary } from './summary.js';

/** What the page itself says: its markup's things and the page rules' one. */
export interface PageReading {
  readonly things: readonly Thing[];
  readonly pageThing: Thing | null;
}

const NOTHING_READ: PageReading = { things: [], pageThing: null };

/**
 * Reads what the plan needs of the page, and nothing more: no `json`, nothing (summaries and
 * change tracking read the markdown); the page's own structured data or a prompt alone, the
 * markup only; a template or schema, the markup, then the page rules only when the markup
 * leaves a field empty (the rules cost several times what the markup does).
 */
export function readPage($: CheerioAPI, base: string, plan: ExtractionPlan): PageReading {
  const request = plan.json;
  if (!request) return NOTHING_READ;
  const things = readStructuredData($, base).things;
  const target = jsonTarget(request);
  if (!target || target.kind === 'prompt') return { things, pageThing: null };
  const template = target.kind === 'template' ? findTemplate(target.name) : undefined;
  if (target.kind === 'template' && !template) return { things, pageThing: null };
  const fromMarkup = fillFromThings(template ? { kind: 'template', template } : { kind: 'schema', schema: (target as { schema: Record<string, unknown> }).schema }, things, null);
  return { things, pageThing: fromMarkup.missing.length ? readPageFacts($, base) : null };
}

export interface ExtractionOutcome {
  /** Warnings for the answer's `warning`. */
  readonly warnings: string[];
  /** The model's work, or null: the parser finishes the page. */
  readonly task: ExtractTask | null;
}

const NO_MODEL_FOR_PROMPT = 'the prompt needs a model and none is configured: answered from the page\'s markup and page rules only';

function jsonTarget(request: JsonRequest): JsonTarget | null {
  if (request.template) return { kind: 'template', name: request.template };
  if (request.schema) return { kind: 'schema', schema: normalizeCallerSchema(request.schema) };
  return request.prompt ? { kind: 'prompt' } : null;
}

function fillTarget(target: JsonTarget): ExtractTarget {
  if (target.kind === 'template') {
    const template = findTemplate(target.name);
    if (!template) throw new AppError('validation_failed', `no extraction template is named "${target.name}" (GET /v1/templates lists them)`);
    return { kind: 'template', template };
  }
  return target.kind === 'schema' ? { kind: 'schema', schema: target.schema } : { kind: 'none' };
}

const EMPTY: Filled = { data: {}, sources: {}, missing: [], warnings: [] };

/** `json`: filled from the page; a JsonTask when a model is to finish it. */
function extractJson(request: JsonRequest, document: Record<string, unknown>, reading: PageReading, modelAvailable: boolean, warnings: string[]): JsonTask | null {
  const target = jsonTarget(request);
  if (!target) {
    document.json = { items: reading.things.map(thingToJson) };
    return null;
  }
  if (target.kind === 'prompt') {
    if (!modelAvailable) throw new AppError('model_required', 'a `json` format with a `prompt` and neither `schema` nor `template` needs a model: this instance has none configured (MODEL_PROVIDER), and POST /v1/extract may bring the caller\'s own `model`');
    document.json = {};
    return { target, prompt: request.prompt, filled: EMPTY };
  }
  const filled = fillFromThings(fillTarget(target), reading.things, reading.pageThing);
  const wantsModel = modelAvailable && (filled.missing.length > 0 || request.prompt !== null);
  if (wantsModel) {
    // Written now too: a model that fails leaves the page's own answer.
    writeJson(document, target, filled);
    return { target, prompt: request.prompt, filled };
  }
  if (request.prompt && !modelAvailable) warnings.push(NO_MODEL_FOR_PROMPT);
  warnings.push(...writeJson(document, target, filled));
  return null;
}

function summarize(document: Record<string, unknown>, modelAvailable: boolean): SummaryTask | null {
  const markdown = typeof document.markdown === 'string' ? document.markdown : '';
  const metadata = (document.metadata ?? {}) as Record<string, unknown>;
  const language = typeof metadata.language === 'string' ? metadata.language : null;
  const extractive = extractiveSummary(markdown, { language }).summary;
  writeSummary(document, extractive, 'extractive');
  return modelAvailable && markdown.trim() ? { extractive, language } : null;
}

/**
 * Fills `document`'s `json` and `summary` as far as the page allows and says what is left for
 * a model. Throws AppError `model_required` (a prompt alone, no model) or `validation_failed`
 * (an unknown template that slipped past the gateway).
 */
export function extractFromPage(
  plan: ExtractionPlan,
  document: Record<string, unknown>,
  reading: PageReading | null,
  options: { readonly modelAvailable: boolean; readonly finish: FinishPlan },
): ExtractionOutcome {
  const warnings: string[] = [];
  const page = reading ?? { things: [], pageThing: null };
  const json = plan.json ? extractJson(plan.json, document, page, options.modelAvailable, warnings) : null;
  const summary = plan.summary ? summarize(document, options.modelAvailable) : null;
  const task = json || summary ? { json, summary, finish: options.finish } : null;
  return { warnings, task };
}
