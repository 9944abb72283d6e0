/**
 * Which model a call goes to: the operator's (MODEL_PROVIDER, MODEL_NAME, MODEL_API_KEY,
 * MODEL_BASE_URL) or a caller's own (`model` on POST /v1/extract: provider, key, name).
 *
 * Rules:
 * - No MODEL_PROVIDER means no operator model (`operatorModel` is null): extraction answers from
 *   markup and page rules, summaries are extractive, and a caller may still bring a key.
 * - A provider set but unusable is a start-up failure, not a first-request one (`checkModelConfig`
 *   names the problem; `operatorModel` throws it as a ConfigError): openai-compatible needs
 *   MODEL_BASE_URL and MODEL_NAME, openai and anthropic need MODEL_API_KEY, and every base URL
 *   in use must be an http(s) URL.
 * - Base URLs: MODEL_BASE_URL for the operator's model when set, else OPENAI_BASE_URL /
 *   ANTHROPIC_BASE_URL (which callers' keys always use). The operator chose them, so private
 *   addresses (127.0.0.1, an Ollama on the LAN) are allowed; a caller can never pick one.
 * - The key is a non-enumerable property of a ModelChoice: a choice logged or serialised by
 *   mistake (pino, JSON.stringify, util.inspect) shows no key. Code reads `choice.apiKey` as usual.
 */
import { ConfigError, maskUrl } from '../../runtime/config.js';
import type { ModelsConfig } from './settings.js';

export type ModelProvider = 'openai' | 'anthropic' | 'openai-compatible';
export type ModelOwner = 'operator' | 'caller';

export interface ModelChoice {
  readonly provider: ModelProvider;
  readonly name: string;
  /** The API key (null: an openai-compatible server without one). Never logged; not enumerable. */
  readonly apiKey: string | null;
  /** The provider's base URL, without a trailing slash (e.g. `https://api.openai.com/v1`). */
  readonly baseUrl: string;
  /** Whose key it is: decides whether a rejected key is the caller's 400 or the operator's 502. */
  readonly owner: ModelOwner;
}

/** The model names used when none is given (MODEL_NAME unset, a caller's `model.name` absent). */
export const DEFAULT_MODEL_NAMES = { openai: 'gpt-4o-mini', anthropic: 'claude-3-5-haiku-latest' } as const;

export type ModelConfig = Pick<ModelsConfig, 'modelProvider' | 'modelName' | 'modelApiKey' | 'modelBaseUrl' | 'openaiBaseUrl' | 'anthropicBaseUrl'>;

interface Problem {
  readonly env: string;
  readonly message: string;
}

/** The model settings' problem as `ENV: message`, or null when they are usable (or unset). */
export function checkModelConfig(config: ModelConfig): string | null {
  const problem = findProblem(config);
  return problem === null ? null : `${problem.env}: ${problem.message}`;
}

/** The operator's model, or null when MODEL_PROVIDER is unset. Throws ConfigError when misconfigured. */
export function operatorModel(config: ModelConfig): ModelChoice | null {
  const provider = config.modelProvider as ModelProvider | null;
  if (provider === null) return null;
  const problem = findProblem(config);
  if (problem !== null) throw new ConfigError(problem.env, problem.message);
  const name = config.modelName ?? (provider === 'openai-compatible' ? '' : DEFAULT_MODEL_NAMES[provider]);
  return modelChoice({ provider, name, apiKey: config.modelApiKey, baseUrl: operatorBaseUrl(config, provider), owner: 'operator' });
}

/** A caller's own model (POST /v1/extract `model`), reached at OPENAI_BASE_URL or ANTHROPIC_BASE_URL. */
export function callerModel(
  config: Pick<ModelsConfig, 'openaiBaseUrl' | 'anthropicBaseUrl'>,
  model: { readonly provider: 'openai' | 'anthropic'; readonly apiKey: string; readonly name?: string | null },
): ModelChoice {
  const baseUrl = model.provider === 'openai' ? config.openaiBaseUrl : config.anthropicBaseUrl;
  return modelChoice({
    provider: model.provider,
    name: model.name || DEFAULT_MODEL_NAMES[model.provider],
    apiKey: model.apiKey,
    baseUrl: trimSlash(baseUrl),
    owner: 'caller',
  });
}

/** A ModelChoice whose `apiKey` is readable but not enumerable (never serialised or logged). */
export function modelChoice(fields: ModelChoice): ModelChoice {
  const { apiKey, ...shown } = fields;
  const choice = { ...shown } as ModelChoice;
  Object.defineProperty(choice, 'apiKey', { value: apiKey, enumerable: false, writable: false });
  return Object.freeze(choice);
}

function operatorBaseUrl(config: ModelConfig, provider: ModelProvider): string {
  if (config.modelBaseUrl !== null) return trimSlash(config.modelBaseUrl);
  return trimSlash(provider === 'anthropic' ? config.anthropicBaseUrl : config.openaiBaseUrl);
}

function trimSlash(url: string): string {
  let end = url.length;
  while (end > 0 && url[end - 1] === '/') end--;
  return url.slice(0, end);
}

function findProblem(config: ModelConfig): Problem | null {
  const urls = [
    { env: 'OPENAI_BASE_URL', value: config.openaiBaseUrl },
    { env: 'ANTHROPIC_BASE_URL', value: config.anthropicBaseUrl },
    { env: 'MODEL_BASE_URL', value: config.modelBaseUrl },
  ];
  for (const { env, value } of urls) {
    if (value !== null && !isHttpUrl(value)) return { env, message: `must be an http:// or https:// URL, got "${maskUrl(value)}"` };
  }
  switch (config.modelProvider) {
    case null:
      return null;
    case 'openai-compatible':
      if (config.modelBaseUrl === null) return { env: 'MODEL_BASE_URL', message: 'MODEL_PROVIDER=openai-compatible needs the server\'s base URL (e.g. http://127.0.0.1:11434/v1 for Ollama)' };
      if (config.modelName === null) return { env: 'MODEL_NAME', message: 'MODEL_PROVIDER=openai-compatible needs the model\'s name (e.g. llama3.1)' };
      return null;
    default:
      if (config.modelApiKey === null) return { env: 'MODEL_API_KEY', message: `MODEL_PROVIDER=${config.modelProvider} needs the provider's API key` };
      return null;
  }
}

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
  } catch {
    return false;
  }
}
