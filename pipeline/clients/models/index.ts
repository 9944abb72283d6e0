/**
 * The model-provider client (docs/architecture.md, `pipeline/clients/models/`): the one place
 * the service speaks to OpenAI, Anthropic and openai-compatible servers, through the AI SDK
 * (`ai` with `@ai-sdk/openai`, `@ai-sdk/anthropic`, `@ai-sdk/openai-compatible`).
 *
 * - config.ts: which model (the operator's from MODEL_*, or a caller's own key), and the
 *   start-up check of the settings;
 * - generate.ts: structured output (strict JSON schema, forced tool, JSON mode) and text, with
 *   session.ts (deadline, SDK requests, log line, errors), retry.ts (429/5xx/529 with
 *   retry-after), errors.ts (provider errors → our codes), schema.ts (strict form), validate.ts
 *   (ajv on the original schema), output.ts (JSON out of text), fit.ts (input cut to fit).
 * A caller's key is sealed for its trip on events by the runtime (pipeline/runtime/seal.ts).
 */
export { callerModel, checkModelConfig, DEFAULT_MODEL_NAMES, operatorModel, type ModelChoice, type ModelOwner, type ModelProvider } from './config.js';
export { generateStructured, generateText, type StructuredCall, type StructuredResult, type TextCall, type TextResult } from './generate.js';
export { MODEL_BACKOFF, type Backoff } from './retry.js';
export type { ModelCallOptions, Usage } from './session.js';
