/**
 * The AI SDK's language model for a ModelChoice, one provider package each: `@ai-sdk/openai`
 * through Chat Completions (`openai.chat`, not the Responses API the package defaults to, so
 * any OpenAI-shaped server at OPENAI_BASE_URL works), `@ai-sdk/anthropic` (Messages), and
 * `@ai-sdk/openai-compatible` for Ollama, vLLM, llama.cpp, LM Studio (structured outputs on:
 * servers that refuse `json_schema` are handled by generate.ts's JSON-mode fallback).
 *
 * Every value is explicit (base URL, key), so the SDK never falls back to its own environment
 * variables. Requests go to the configured base URL only, through Node's fetch (or the one a
 * test passes); the call's abort signal bounds each of them.
 */
import { createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAI } from '@ai-sdk/openai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import type { LanguageModel } from 'ai';
import type { ModelChoice } from './config.js';

/** The provider-options namespace of each provider (where `strictJsonSchema` goes). */
export const OPTIONS_NAMESPACE = { openai: 'openai', anthropic: 'anthropic', 'openai-compatible': 'openaiCompatible' } as const;

export function languageModel(model: ModelChoice, fetchFn?: typeof fetch): LanguageModel {
  const common = { baseURL: model.baseUrl, ...(fetchFn ? { fetch: fetchFn } : {}) };
  switch (model.provider) {
    case 'openai':
      return createOpenAI({ ...common, apiKey: model.apiKey ?? '' }).chat(model.name);
    case 'anthropic':
      return createAnthropic({ ...common, apiKey: model.apiKey ?? '' }).messages(model.name);
    case 'openai-compatible':
      return createOpenAICompatible({
        ...common,
        name: OPTIONS_NAMESPACE['openai-compatible'],
        ...(model.apiKey ? { apiKey: model.apiKey } : {}),
        supportsStructuredOutputs: true,
      }).chatModel(model.name);
  }
}
