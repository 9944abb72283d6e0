/**
 * One model call's life: its deadline, its requests through the AI SDK, its accounting, its
 * log line and its error. generate.ts decides what to ask; this file asks.
 *
 * - The deadline: MODEL_TIMEOUT_MS from the start, for every attempt, wait, fallback and repair
 *   of the call together (an AbortSignal, joined with the caller's). Past it: `model_timeout`.
 *   The caller's own abort is passed on as its reason, untouched.
 * - Each request goes through the SDK's `generateText` with its retries off (retry.ts retries),
 *   in one of four shapes: `json-schema` (OpenAI's `response_format: json_schema`, strict when
 *   the schema allows), `json-mode` (`response_format: json_object`, the schema in the
 *   instructions), `tool` (Anthropic: one tool, forced with `tool_choice: {type:'tool'}`),
 *   `text` (plain text).
 * - The log: one `info` line per call (provider, model, owner, shape, tokens in and out, ms,
 *   attempts), or one `warn` line with the error code. Never the key, the headers, the page
 *   or the answer.
 * - The SDK's own warnings go to that line, not to the process's stderr: its global warning
 *   printer is switched off when this module loads.
 */
import {
  generateText as sdkGenerateText,
  jsonSchema,
  tool,
  ToolChoiceViolationError,
  type JSONSchema7,
  type LanguageModel,
  type LanguageModelUsage,
  type ModelMessage,
  type OutputInterface,
  type ToolSet,
  type Warning,
} from 'ai';
import type { ModelsConfig } from './settings.js';
import { AppError } from '../../runtime/errors.js';
import type { Logger } from '../../runtime/log.js';
import type { ModelChoice } from './config.js';
import { failureError, providerLabel, readFailure, scrub } from './errors.js';
import { languageModel, OPTIONS_NAMESPACE } from './providers.js';
import { boundedFetch } from './bounded-fetch.js';
import { MODEL_BACKOFF, withRetries, type Backoff } from './retry.js';
import type { JsonSchema } from './schema.js';

(globalThis as { AI_SDK_LOG_WARNINGS?: unknown }).AI_SDK_LOG_WARNINGS = false;

export interface ModelCallOptions {
  readonly config: Pick<ModelsConfig, 'modelTimeoutMs' | 'modelMaxRetries' | 'modelMaxInputChars'>;
  /** The caller's abort (a pool's deadline, a cancelled job): passed on as is. */
  readonly signal?: AbortSignal;
  readonly log?: Logger;
  /** The fetch requests go through (default: Node's). */
  readonly fetch?: typeof fetch;
  /** Retry waits: tests pass a small base or their own sleep. */
  readonly backoff?: Partial<Backoff>;
}

export interface Usage {
  readonly inputTokens: number;
  readonly outputTokens: number;
}

export type Shape = 'json-schema' | 'json-mode' | 'tool' | 'text';

export interface Ask {
  readonly shape: Shape;
  readonly instructions: string;
  readonly messages: ModelMessage[];
  readonly maxOutputTokens: number;
  readonly temperature?: number;
  /** json-schema: the schema sent and whether strict; tool: the tool's input schema. */
  readonly schema?: JsonSchema;
  readonly strict?: boolean;
  readonly schemaName?: string;
}

export interface Answer {
  readonly text: string;
  /** The forced tool's input, when the model called it. */
  readonly toolInput: unknown;
  readonly finishReason: string;
}

export class Session {
  readonly sdkModel: LanguageModel;
  readonly timeout: AbortSignal;
  readonly signal: AbortSignal;
  private readonly started = Date.now();
  private readonly deadline: number;
  attempts = 0;
  inputTokens = 0;
  outputTokens = 0;
  readonly sdkWarnings: string[] = [];

  constructor(
    readonly model: ModelChoice,
    readonly options: ModelCallOptions,
  ) {
    // Every answer's body bounded as it is read (bounded-fetch.ts), whoever's fetch it is.
    this.sdkModel = languageModel(model, boundedFetch(options.fetch));
    this.timeout = AbortSignal.timeout(options.config.modelTimeoutMs);
    this.signal = options.signal ? AbortSignal.any([this.timeout, options.signal]) : this.timeout;
    this.deadline = this.started + options.config.modelTimeoutMs;
  }

  get usage(): Usage {
    return { inputTokens: this.inputTokens, outputTokens: this.outputTokens };
  }

  /** One request, retried as retry.ts allows. */
  ask(request: Ask): Promise<Answer> {
    return withRetries(() => this.askOnce(request), {
      model: this.model,
      maxRetries: this.options.config.modelMaxRetries,
      backoff: { ...MODEL_BACKOFF, ...this.options.backoff },
      signal: this.signal,
      deadline: this.deadline,
      onAttempt: () => void this.attempts++,
    });
  }

  private async askOnce(request: Ask): Promise<Answer> {
    try {
      const result = await sdkGenerateText({
        model: this.sdkModel,
        instructions: request.instructions,
        messages: request.messages,
        maxOutputTokens: request.maxOutputTokens,
        temperature: request.temperature,
        maxRetries: 0,
        abortSignal: this.signal,
        // Counted per response, so an answer the SDK then refuses (below) is counted too.
        onLanguageModelCallEnd: (event) => this.count(event.usage),
        ...shapeSettings(this.model, request),
      });
      this.sdkWarnings.push(...(result.warnings ?? []).map(describeWarning));
      return { text: result.text, toolInput: result.toolCalls[0]?.input, finishReason: result.finishReason };
    } catch (error) {
      // The model wrote its answer as text instead of calling the forced tool: read the text.
      if (!ToolChoiceViolationError.isInstance(error)) throw error;
      const text = error.content.map((part) => (part.type === 'text' ? part.text : '')).join('');
      return { text, toolInput: undefined, finishReason: error.finishReason };
    }
  }

  private count(usage: LanguageModelUsage): void {
    this.inputTokens += usage.inputTokens ?? 0;
    this.outputTokens += usage.outputTokens ?? 0;
  }

  /** The call's info line. */
  done(fields: Record<string, unknown>): void {
    this.options.log?.info({ ...this.logFields(), ...fields }, 'model call');
  }

  /** The error the call ends with (logged once): the caller's abort as is, else one of our codes. */
  fail(error: unknown, fields: Record<string, unknown>): unknown {
    const callerAbort = this.options.signal?.aborted === true;
    const settled = callerAbort ? (this.options.signal?.reason ?? error) : this.toAppError(error);
    const code = settled instanceof AppError ? settled.code : 'aborted';
    this.options.log?.warn({ ...this.logFields(), ...fields, code }, 'model call failed');
    return settled;
  }

  private toAppError(error: unknown): AppError {
    if (error instanceof AppError) return error;
    if (this.timeout.aborted) {
      return new AppError('model_timeout', `${providerLabel(this.model)} did not answer within MODEL_TIMEOUT_MS (${this.options.config.modelTimeoutMs} ms)`);
    }
    const failure = readFailure(error, this.model);
    if (failure !== null) return failureError(failure, this.model);
    // Not a provider's answer: only the error's name (its message may quote the response).
    const name = error instanceof Error ? scrub(error.name, this.model.apiKey) : 'unknown error';
    return new AppError('model_failed', `the call to ${providerLabel(this.model)} failed (${name})`);
  }

  private logFields(): Record<string, unknown> {
    return {
      provider: this.model.provider,
      model: this.model.name,
      owner: this.model.owner,
      inputTokens: this.inputTokens,
      outputTokens: this.outputTokens,
      ms: Date.now() - this.started,
      attempts: this.attempts,
      ...(this.sdkWarnings.length > 0 ? { sdkWarnings: [...new Set(this.sdkWarnings)] } : {}),
    };
  }
}

/** The SDK options that give a request its shape. */
function shapeSettings(model: ModelChoice, request: Ask): { output?: OutputInterface<string, string, never>; tools?: ToolSet; toolChoice?: { type: 'tool'; toolName: string }; providerOptions?: Record<string, Record<string, boolean>> } {
  const name = request.schemaName ?? 'extract';
  switch (request.shape) {
    case 'json-schema':
      return {
        output: rawJson({ type: 'json', schema: request.schema as JSONSchema7, name }),
        providerOptions: { [OPTIONS_NAMESPACE[model.provider]]: { strictJsonSchema: request.strict ?? true } },
      };
    case 'json-mode':
      return { output: rawJson({ type: 'json' }) };
    case 'tool':
      return {
        tools: { [name]: tool({ description: 'Record the data read from the page.', inputSchema: jsonSchema(request.schema as JSONSchema7) }) },
        toolChoice: { type: 'tool', toolName: name },
      };
    case 'text':
      return {};
  }
}

/**
 * An output that sets the request's response format and hands the text back untouched: the
 * answer is parsed here (output.ts: fences unwrapped) and checked against the caller's
 * original schema (validate.ts), not the SDK's reading of the strict form.
 */
function rawJson(responseFormat: { type: 'json'; schema?: JSONSchema7; name?: string }): OutputInterface<string, string, never> {
  return {
    name: 'raw-json',
    responseFormat: Promise.resolve(responseFormat),
    parseCompleteOutput: async ({ text }) => text,
    parsePartialOutput: async ({ text }) => ({ partial: text }),
    createElementStreamTransform: () => undefined,
  };
}

function describeWarning(warning: Warning): string {
  switch (warning.type) {
    case 'unsupported':
    case 'compatibility':
      return `${warning.type}: ${warning.feature}${warning.details ? ` (${warning.details})` : ''}`;
    case 'other':
      return warning.message;
    default:
      return warning.type;
  }
}
