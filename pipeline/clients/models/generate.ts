/**
 * The two things the service asks a model: JSON shaped by a schema (`generateStructured`: the
 * fields a page's markup and rules left empty, `prompt`-driven extraction) and plain text
 * (`generateText`: abstractive summaries).
 *
 * A structured call:
 * 1. The page text (`prompt`) is cut to MODEL_MAX_INPUT_CHARS (fit.ts; `truncated` and a warning).
 * 2. The schema is prepared (schema.ts) and its check compiled from the ORIGINAL (validate.ts).
 * 3. OpenAI and openai-compatible servers are asked with strict `json_schema` output; Anthropic
 *    with one forced tool whose input is the schema. An openai-compatible server that answers
 *    400/422 about `response_format`, `json_schema` or tools (Ollama, Mistral and others lack
 *    them) is asked once more in JSON mode (`json_object`, the schema in the instructions), and
 *    the rest of the call stays in that mode.
 * 4. The answer is read (tool input, or the text with code fences unwrapped), the `{items}`
 *    wrapper of a top-level array removed, nulls of optional fields dropped, and checked. An
 *    answer that is not JSON or breaks the schema gets ONE repair request (the model is shown
 *    its answer and what was wrong); a second failure is `model_output_invalid`, and nothing the
 *    model said is returned.
 * Retries, the deadline, errors and the log line are session.ts's.
 */
import type { ModelMessage } from 'ai';
import { AppError } from '../../runtime/errors.js';
import type { ModelChoice } from './config.js';
import { readFailure } from './errors.js';
import { fitInput } from './fit.js';
import { parseModelJson } from './output.js';
import { dropOptionalNulls, isRecord, prepareSchema, type JsonSchema, type PreparedSchema } from './schema.js';
import type { Answer, Ask, ModelCallOptions, Session, Shape, Usage } from './session.js';

/**
 * The session (and with it the AI SDK's provider packages, ~8 MB of heap) is imported by the
 * first model call: a service with no model configured, or one whose callers never ask for
 * one, never loads them.
 */
async function openSession(model: ModelChoice, options: ModelCallOptions): Promise<Session> {
  const { Session: SessionClass } = await import('./session.js');
  return new SessionClass(model, options);
}
import { compileCheck, type Check } from './validate.js';

export interface StructuredCall {
  /** Instructions (the system prompt). */
  readonly system: string;
  /** The user content: page text and the like; cut to MODEL_MAX_INPUT_CHARS. */
  readonly prompt: string;
  /** A JSON Schema of an object (or of an array, sent wrapped as `{items}`). */
  readonly schema: Record<string, unknown>;
  /** The schema's name for the provider (`^[a-zA-Z0-9_-]{1,64}$`; other characters become `_`). Default `extract`. */
  readonly schemaName?: string;
  readonly maxOutputTokens?: number;
}

export interface StructuredResult<T = Record<string, unknown>> {
  /** The answer, checked against the schema (an array when the schema's top level is one). */
  readonly object: T;
  readonly usage: Usage;
  /** The prompt was cut to fit MODEL_MAX_INPUT_CHARS. */
  readonly truncated: boolean;
  /** For the caller's `warning`: the page cut to fit. */
  readonly warnings: string[];
}

export interface TextCall {
  readonly system: string;
  readonly prompt: string;
  readonly maxOutputTokens?: number;
}

export interface TextResult {
  readonly text: string;
  readonly usage: Usage;
  readonly truncated: boolean;
  readonly warnings: string[];
}

const STRUCTURED_MAX_OUTPUT_TOKENS = 4096;
const TEXT_MAX_OUTPUT_TOKENS = 1024;
/** Characters of a failed answer shown back to the model in the repair request. */
const REPAIR_ECHO_CHARS = 4000;
const FALLBACK_HINTS = ['response_format', 'json_schema', 'json schema', 'structured', 'tool'];

type Reading = { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly problems: string[]; readonly shown: string };

export async function generateStructured<T = Record<string, unknown>>(model: ModelChoice, call: StructuredCall, options: ModelCallOptions): Promise<StructuredResult<T>> {
  const session = await openSession(model, options);
  let shape: Shape = model.provider === 'anthropic' ? 'tool' : 'json-schema';
  let repaired = false;
  const fitted = fitInput(call.prompt, options.config.modelMaxInputChars);
  try {
    const prepared = prepareSchema(call.schema);
    const check = compileCheck(prepared.original);
    const ask = (messages: ModelMessage[]): Ask => structuredAsk(shape, call, prepared, messages);
    const messages: ModelMessage[] = [{ role: 'user', content: fitted.text }];
    const first = await askWithFallback(session, ask(messages), (fallback) => {
      shape = 'json-mode';
      return ask(fallback.messages);
    });
    let reading = readAnswer(first, prepared, check);
    if (!reading.ok) {
      repaired = true;
      const again = await session.ask(ask([...messages, ...repairMessages(reading)]));
      reading = readAnswer(again, prepared, check);
      if (!reading.ok) throw new AppError('model_output_invalid', `the model's answer was unusable again after a repair request: ${reading.problems.join('; ')}`);
    }
    session.done({ shape, repaired, truncated: fitted.truncated });
    return { object: reading.value as T, usage: session.usage, truncated: fitted.truncated, warnings: fitted.warning ? [fitted.warning] : [] };
  } catch (error) {
    throw session.fail(error, { shape, repaired, truncated: fitted.truncated });
  }
}

export async function generateText(model: ModelChoice, call: TextCall, options: ModelCallOptions): Promise<TextResult> {
  const session = await openSession(model, options);
  const fitted = fitInput(call.prompt, options.config.modelMaxInputChars);
  try {
    const answer = await session.ask({
      shape: 'text',
      instructions: call.system,
      messages: [{ role: 'user', content: fitted.text }],
      maxOutputTokens: call.maxOutputTokens ?? TEXT_MAX_OUTPUT_TOKENS,
    });
    const text = answer.text.trim();
    if (text === '') throw new AppError('model_output_invalid', 'the model answered nothing');
    session.done({ shape: 'text', truncated: fitted.truncated });
    return { text, usage: session.usage, truncated: fitted.truncated, warnings: fitted.warning ? [fitted.warning] : [] };
  } catch (error) {
    throw session.fail(error, { shape: 'text', truncated: fitted.truncated });
  }
}

function structuredAsk(shape: Shape, call: StructuredCall, prepared: PreparedSchema, messages: ModelMessage[]): Ask {
  const common = { messages, maxOutputTokens: call.maxOutputTokens ?? STRUCTURED_MAX_OUTPUT_TOKENS, temperature: 0, schemaName: schemaName(call.schemaName) };
  switch (shape) {
    case 'tool':
      return { ...common, shape, instructions: call.system, schema: prepared.target };
    case 'json-mode':
      return { ...common, shape, instructions: jsonModeInstructions(call.system, prepared.target) };
    default:
      return { ...common, shape: 'json-schema', instructions: call.system, schema: prepared.strictForm, strict: prepared.strict };
  }
}

/** The first request; for an openai-compatible server that refuses structured output, once more in JSON mode. */
async function askWithFallback(session: Session, request: Ask, fallBack: (request: Ask) => Ask): Promise<Answer> {
  try {
    return await session.ask(request);
  } catch (error) {
    if (!refusesStructuredOutput(session, request, error)) throw error;
    return session.ask(fallBack(request));
  }
}

function refusesStructuredOutput(session: Session, request: Ask, error: unknown): boolean {
  if (session.model.provider !== 'openai-compatible' || request.shape !== 'json-schema') return false;
  const failure = readFailure(error, session.model);
  if (failure === null || (failure.status !== 400 && failure.status !== 422)) return false;
  const said = `${failure.body} ${failure.message}`.toLowerCase();
  return FALLBACK_HINTS.some((hint) => said.includes(hint));
}

function jsonModeInstructions(system: string, schema: JsonSchema): string {
  return `${system}\n\nAnswer with one JSON object and nothing else (no prose, no code fence). It must match this JSON Schema:\n${JSON.stringify(schema)}`;
}

function readAnswer(answer: Answer, prepared: PreparedSchema, check: Check): Reading {
  const shown = answer.toolInput !== undefined ? JSON.stringify(answer.toolInput) : answer.text;
  let value: unknown = answer.toolInput;
  if (value === undefined) {
    const parsed = parseModelJson(answer.text);
    if (!parsed.ok) {
      const cut = answer.finishReason === 'length' ? ' (it stopped at the output token limit)' : '';
      return { ok: false, problems: [`${parsed.problem}${cut}`], shown };
    }
    value = parsed.value;
  }
  if (prepared.wrapped && isRecord(value)) value = value.items;
  dropOptionalNulls(value, prepared.original);
  const problems = check(value);
  return problems.length === 0 ? { ok: true, value } : { ok: false, problems, shown };
}

function repairMessages(reading: Extract<Reading, { ok: false }>): ModelMessage[] {
  const shown = reading.shown.length > REPAIR_ECHO_CHARS ? `${reading.shown.slice(0, REPAIR_ECHO_CHARS)}…` : reading.shown;
  return [
    { role: 'assistant', content: shown === '' ? '(no answer)' : shown },
    { role: 'user', content: `That answer cannot be used: ${reading.problems.join('; ')}. Answer again with JSON that matches the schema exactly.` },
  ];
}

/** A provider-safe schema name: `[a-zA-Z0-9_-]`, 1–64 characters. */
function schemaName(name: string | undefined): string {
  if (!name) return 'extract';
  let out = '';
  for (const ch of name.slice(0, 64)) out += /[a-zA-Z0-9_-]/.test(ch) ? ch : '_';
  return out;
}
