/**
 * Which web-search providers this instance asks, in which order (SEARCH_PROVIDERS), built
 * once per searcher process from the settings (pipeline/search/settings.ts).
 *
 * - Unset SEARCH_PROVIDERS: every configured provider in the order SearXNG (SEARXNG_URL),
 *   Brave (BRAVE_SEARCH_API_KEY), SERP API (SERP_API_KEY), then the local index, which is
 *   always there.
 * - Set: exactly those, in that order. An unknown name, a name twice, or a provider named but
 *   not configured stops the process at start (ConfigError), as any bad setting does.
 */
import { BraveSearchProvider } from '../clients/brave-search.js';
import { SearxngProvider } from '../clients/searxng.js';
import { SerpApiProvider } from '../clients/serpapi.js';
import { PROVIDER_NAMES, type ProviderName, type SearchProvider } from '../clients/web-search.js';
import { ConfigError } from '../runtime/config.js';
import type { Store } from '../runtime/store/store.js';
import type { BatchWriter } from '../runtime/store/batch-writer.js';
import { flushSearchRows, LocalIndexProvider } from './index/index.js';
import type { SearchConfig as SearchSettingValues } from './settings.js';

type SearchConfig = Pick<SearchSettingValues, 'searchProviders' | 'searxngUrl' | 'braveSearchApiKey' | 'braveSearchUrl' | 'serpApiKey' | 'serpApiUrl'>;

/** What each provider needs configured, and what the error says when it is not. */
const REQUIRES: Readonly<Record<ProviderName, { readonly ready: (c: SearchConfig) => boolean; readonly setting: string | null }>> = {
  searxng: { ready: (c) => c.searxngUrl !== null, setting: 'SEARXNG_URL' },
  brave: { ready: (c) => c.braveSearchApiKey !== null, setting: 'BRAVE_SEARCH_API_KEY' },
  serpapi: { ready: (c) => c.serpApiKey !== null, setting: 'SERP_API_KEY' },
  local: { ready: () => true, setting: null },
};

const isProviderName = (name: string): name is ProviderName => (PROVIDER_NAMES as readonly string[]).includes(name);

/** The provider order of these settings (see the header). */
export function providerOrder(config: SearchConfig): ProviderName[] {
  if (config.searchProviders === null || config.searchProviders.trim() === '') return PROVIDER_NAMES.filter((name) => REQUIRES[name].ready(config));
  const names = config.searchProviders.split(',').map((n) => n.trim().toLowerCase()).filter(Boolean);
  const order: ProviderName[] = [];
  for (const name of names) {
    if (!isProviderName(name)) throw new ConfigError('SEARCH_PROVIDERS', `unknown provider "${name}"; known: ${PROVIDER_NAMES.join(', ')}`);
    if (order.includes(name)) throw new ConfigError('SEARCH_PROVIDERS', `"${name}" is named twice`);
    if (!REQUIRES[name].ready(config)) throw new ConfigError('SEARCH_PROVIDERS', `"${name}" is named but ${REQUIRES[name].setting} is not set`);
    order.push(name);
  }
  if (order.length === 0) throw new ConfigError('SEARCH_PROVIDERS', 'names no provider');
  return order;
}

function checkedUrl(env: string, value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ConfigError(env, 'is not a URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ConfigError(env, 'must be an http(s) URL');
  return value;
}

/**
 * The providers of `config`, in order, each with its client. With `writer` (the process's
 * batch writer), the local index writes what this process queued for it before each search.
 */
export function searchProviders(config: SearchConfig, store: Store, writer?: Pick<BatchWriter, 'flush' | 'pending'>): SearchProvider[] {
  return providerOrder(config).map((name): SearchProvider => {
    switch (name) {
      case 'searxng':
        return new SearxngProvider({ baseUrl: checkedUrl('SEARXNG_URL', config.searxngUrl ?? '') });
      case 'brave':
        return new BraveSearchProvider({ apiKey: config.braveSearchApiKey ?? '', baseUrl: checkedUrl('BRAVE_SEARCH_URL', config.braveSearchUrl) });
      case 'serpapi':
        return new SerpApiProvider({ apiKey: config.serpApiKey ?? '', baseUrl: checkedUrl('SERP_API_URL', config.serpApiUrl) });
      case 'local':
        return new LocalIndexProvider(store, writer ? { beforeRead: () => flushSearchRows(writer) } : {});
    }
  });
}
