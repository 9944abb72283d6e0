/**
 * Browser identity for outbound requests: realistic, self-consistent header sets (user agent,
 * client hints and accept headers of one browser) from header-generator, the generator
 * got-scraping uses, for a desktop or a phone and the request's locales. The HTTP stack
 * (http.ts) sends them, with the caller's headers merged over them except the reserved ones.
 */
import { HeaderGenerator, type HeaderGeneratorOptions } from 'header-generator';

/**
 * got-scraping 4.2.1 builds its default generator with no options (`new HeaderGenerator()`)
 * and passes the HTTP version and its `headerGeneratorOptions` per call; so does this.
 */
const headerGenerator = new HeaderGenerator();

const DESKTOP: Partial<HeaderGeneratorOptions> = { devices: ['desktop'], operatingSystems: ['windows', 'macos', 'linux'], browsers: ['chrome', 'firefox', 'edge', 'safari'] };
const MOBILE: Partial<HeaderGeneratorOptions> = { devices: ['mobile'], operatingSystems: ['android', 'ios'], browsers: ['chrome', 'safari'] };

function generateHeaders(mobile: boolean, locales?: readonly string[]): Record<string, string> {
  return headerGenerator.getHeaders({ httpVersion: '1', ...(mobile ? MOBILE : DESKTOP), ...(locales ? { locales: [...locales] } : {}) });
}

/** Generated header sets kept per (device, locales); one in REFRESH_EVERY calls replaces one. */
const HEADER_POOL_SIZE = 32;
const REFRESH_EVERY = 16;
/** Locale lists come from requests: past this many kinds, sets are generated per call. */
const MAX_HEADER_POOLS = 64;
const headerPools = new Map<string, Record<string, string>[]>();

/**
 * A browser header set (HTTP/1.1 form): a consistent set (user agent, client hints, accept
 * headers of one browser) drawn from a pool of generated ones. Generating a set costs ~3 ms
 * of CPU (the generator's Bayesian network), more than fetching a small page; a pool of 32
 * sets, one replaced every 16 calls, keeps the variety sites see at a fraction of that.
 */
export function browserHeaders(mobile: boolean, locales?: readonly string[]): Record<string, string> {
  const kind = `${mobile ? 'mobile' : 'desktop'}|${locales?.join(',') ?? ''}`;
  let pool = headerPools.get(kind);
  if (!pool) {
    if (headerPools.size >= MAX_HEADER_POOLS) return generateHeaders(mobile, locales);
    pool = [];
    headerPools.set(kind, pool);
  }
  if (pool.length < HEADER_POOL_SIZE) {
    const fresh = generateHeaders(mobile, locales);
    pool.push(fresh);
    return { ...fresh };
  }
  const at = Math.floor(Math.random() * pool.length);
  if (Math.random() * REFRESH_EVERY < 1) pool[at] = generateHeaders(mobile, locales);
  return { ...(pool[at] as Record<string, string>) };
}
