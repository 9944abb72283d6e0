/**
 * The gateway's checks of the extraction formats (`json`, `summary`, `changeTracking`) in a
 * request's scrape options, before anything is fetched or charged: scrape, crawl, batch and
 * extract all take them.
 *
 * - A `json` format's `template` must name one of GET /v1/templates (422 `template_unknown`).
 * - A `json` format's `schema` must be a JSON Schema the service can fill and validate against:
 *   valid, of an object (a top-level array is wrapped as `{items: …}`), and bounded in size
 *   (pipeline/structured/schema.ts; 422 `schema_invalid`, `schema_not_object`, `schema_too_large`).
 * - A `prompt` with neither `schema` nor `template` needs a model: without the operator's (and,
 *   on POST /v1/extract, without the caller's own `model`) it is 400 `model_required`.
 */
import { AppError } from '../../pipeline/runtime/errors.js';
import { checkCallerSchema } from '../../pipeline/structured/schema.js';
import { TEMPLATES, findTemplate } from '../../schemas/templates.js';
import { ValidationFailed } from '../replies.js';
import type { ValidationDetail } from '../validation.js';

export const EXTRACTION_FORMATS: readonly string[] = ['json', 'summary', 'changeTracking'];

export interface JsonFields {
  readonly schema?: Record<string, unknown> | null;
  readonly template?: string | null;
  readonly prompt?: string | null;
}

const TEMPLATE_NAMES = TEMPLATES.map((t) => t.name).join(', ');

/** Problems of one json target (a format object, or the extract body), located under `loc`. */
export function jsonTargetProblems(target: JsonFields, loc: readonly (string | number)[]): ValidationDetail[] {
  const out: ValidationDetail[] = [];
  if (typeof target.template === 'string' && !findTemplate(target.template)) {
    out.push({ loc: [...loc, 'template'], msg: `no extraction template is named "${target.template}"; the templates are ${TEMPLATE_NAMES}`, type: 'template_unknown' });
  }
  if (target.schema && typeof target.schema === 'object') {
    for (const problem of checkCallerSchema(target.schema)) out.push({ ...problem, loc: [...loc, 'schema', ...problem.loc] });
  }
  return out;
}

/** `prompt` alone (no schema, no template): a model writes the whole answer. */
export function promptOnly(target: JsonFields): boolean {
  return !target.schema && !target.template && typeof target.prompt === 'string' && target.prompt.trim() !== '';
}

export const MODEL_REQUIRED_MESSAGE =
  'a `prompt` with neither `schema` nor `template` needs a model: this instance has no model configured (MODEL_PROVIDER)';

/**
 * Checks the `json` formats of scrape options at `loc` (e.g. ['body', 'formats'] or
 * ['body', 'scrapeOptions', 'formats']); throws ValidationFailed (422) or `model_required`.
 */
export function checkExtractionFormats(formats: readonly unknown[] | undefined, loc: readonly (string | number)[], modelAvailable: boolean): void {
  const details: ValidationDetail[] = [];
  let needsModel = false;
  (formats ?? []).forEach((item, i) => {
    if (!item || typeof item !== 'object' || (item as { type?: unknown }).type !== 'json') return;
    details.push(...jsonTargetProblems(item as JsonFields, [...loc, i]));
    needsModel ||= promptOnly(item as JsonFields);
  });
  if (details.length) throw new ValidationFailed(details);
  if (needsModel && !modelAvailable) throw new AppError('model_required', MODEL_REQUIRED_MESSAGE);
}
