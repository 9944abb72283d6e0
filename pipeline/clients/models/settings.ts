/**
 * The settings of extraction's models (the `json`, `summary` and `changeTracking` formats, POST
 * /v1/extract; the extractor actor, actors/extractor/, and pipeline/clients/models/): the
 * operator's model, where each provider is reached, and how calls are bounded. This family's part of the one settings table:
 * pipeline/service/settings.ts assembles the parts, pipeline/runtime/config.ts parses them
 * (`satisfies SettingsTable` checks each entry here); README.md's "Configuration" lists them.
 */
import type { ConfigOf, SettingsTable } from '../../runtime/config.js';

export const MODEL_SETTINGS = {
  modelProvider: {
    env: 'MODEL_PROVIDER',
    type: 'enum',
    default: null,
    values: ['openai', 'anthropic', 'openai-compatible'],
    description:
      "The operator's model for extraction and summaries (`json` fields the page's markup and rules leave empty, `prompt`, abstractive `summary`): `openai`, `anthropic`, or `openai-compatible` (Ollama, vLLM, llama.cpp, LM Studio at MODEL_BASE_URL). Unset: no operator model; extraction answers from markup and page rules, summaries are extractive, and a caller may still bring a key to POST /v1/extract.",
  },
  modelName: {
    env: 'MODEL_NAME',
    type: 'string',
    default: null,
    description: "The operator model's name (e.g. `gpt-4o-mini`, `claude-3-5-haiku-latest`, `llama3.1`). Unset: `gpt-4o-mini` for openai, `claude-3-5-haiku-latest` for anthropic; openai-compatible requires it.",
  },
  modelApiKey: {
    env: 'MODEL_API_KEY',
    type: 'string',
    default: null,
    secret: true,
    description: "The operator model's API key (required for openai and anthropic; optional for openai-compatible servers). Never logged.",
  },
  modelBaseUrl: {
    env: 'MODEL_BASE_URL',
    type: 'string',
    default: null,
    description: 'Base URL of an openai-compatible server (e.g. `http://127.0.0.1:11434/v1` for Ollama); for openai or anthropic it overrides OPENAI_BASE_URL / ANTHROPIC_BASE_URL for the operator model only. May be a private address: the operator chose it.',
  },
  openaiBaseUrl: {
    env: 'OPENAI_BASE_URL',
    type: 'string',
    default: 'https://api.openai.com/v1',
    description: "Where OpenAI is reached, for the operator's model and for callers' own `openai` keys.",
  },
  anthropicBaseUrl: {
    env: 'ANTHROPIC_BASE_URL',
    type: 'string',
    default: 'https://api.anthropic.com/v1',
    description: "Where Anthropic is reached, for the operator's model and for callers' own `anthropic` keys.",
  },
  modelTimeoutMs: {
    env: 'MODEL_TIMEOUT_MS',
    type: 'integer',
    default: 60000,
    min: 1000,
    max: 600000,
    description: 'Longest one model call may take, retries included.',
  },
  modelMaxRetries: {
    env: 'MODEL_MAX_RETRIES',
    type: 'integer',
    default: 2,
    min: 0,
    max: 10,
    description: "Retries of a model call answered 429 (rate limited; `retry-after` honoured), 5xx or Anthropic's 529 (overloaded), with exponential backoff.",
  },
  modelMaxInputChars: {
    env: 'MODEL_MAX_INPUT_CHARS',
    type: 'integer',
    default: 60000,
    min: 1000,
    max: 2000000,
    description: "Most characters of page text sent to a model in one call; a longer page is cut to fit and the answer's `warning` says so.",
  },
  extractConcurrency: {
    env: 'EXTRACT_CONCURRENCY',
    type: 'integer',
    default: 16,
    min: 1,
    max: 1024,
    description: 'Model calls each extractor process runs at once (its own pool: slow calls never hold the parser\'s slots).',
  },
} as const satisfies SettingsTable;

/** The values of this part, as pipeline/runtime/config.ts parses them. */
export type ModelsConfig = ConfigOf<typeof MODEL_SETTINGS>;
