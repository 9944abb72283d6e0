/**
 * Proxy routing: scrape option `proxy` (`none`, `datacenter`, `residential`, `mobile`,
 * `auto`) and `location.country` → which configured proxy, if any, a request goes through.
 *
 * - `none`: direct.
 * - `datacenter` / `residential` / `mobile`: a proxy of that pool; no pool configured is
 *   `proxy_unavailable` — never a silent direct fetch.
 * - `auto`: a country pool when the request has a location whose country has one, else the
 *   datacenter pool when configured, else direct. The choice is reported (`proxyUsed`).
 * - A country pool (`proxiesByCountry`, keys are ISO country codes) is taken as a
 *   geo-targeted residential pool: it serves `residential` and `auto` requests from that
 *   country. `datacenter` and `mobile` keep their own pools (the location then only sets
 *   Accept-Language).
 *
 * Within a pool, proxies are used in turn (round robin per pool).
 */
import { AppError } from '../errors.js';

export type ProxyRoute = 'none' | 'datacenter' | 'residential' | 'mobile' | 'auto';
export type ProxyUsed = 'none' | 'datacenter' | 'residential' | 'mobile';

export interface ProxyPools {
  readonly datacenter?: readonly string[];
  readonly residential?: readonly string[];
  readonly mobile?: readonly string[];
}

/** The proxy pools configured by PROXY_DATACENTER_URLS, PROXY_RESIDENTIAL_URLS and PROXY_MOBILE_URLS. */
export function proxyPoolsOf(config: {
  readonly proxyDatacenterUrls?: readonly string[] | null;
  readonly proxyResidentialUrls?: readonly string[] | null;
  readonly proxyMobileUrls?: readonly string[] | null;
}): ProxyPools {
  return {
    datacenter: config.proxyDatacenterUrls ?? [],
    residential: config.proxyResidentialUrls ?? [],
    mobile: config.proxyMobileUrls ?? [],
  };
}

export interface ProxyChoice {
  /** The proxy URL (with its credentials) or null for a direct connection. */
  readonly proxyUrl: string | null;
  readonly proxyUsed: ProxyUsed;
  /** The country of the country pool used, else null. */
  readonly proxyCountry: string | null;
}

export class ProxyRouter {
  private readonly turns = new Map<string, number>();
  private readonly byCountry: ReadonlyMap<string, readonly string[]>;

  constructor(
    private readonly pools: ProxyPools = {},
    proxiesByCountry: Readonly<Record<string, readonly string[]>> = {},
  ) {
    this.byCountry = new Map(Object.entries(proxiesByCountry).filter(([, urls]) => urls.length > 0).map(([c, urls]) => [c.toUpperCase(), urls]));
  }

  private next(key: string, urls: readonly string[]): string {
    const turn = this.turns.get(key) ?? 0;
    this.turns.set(key, turn + 1);
    return urls[turn % urls.length] as string;
  }

  private pool(name: Exclude<ProxyUsed, 'none'>): readonly string[] {
    return this.pools[name] ?? [];
  }

  choose(route: ProxyRoute = 'auto', country?: string | null): ProxyChoice {
    const cc = country?.toUpperCase() ?? null;
    const countryPool = cc ? this.byCountry.get(cc) : undefined;
    if (route === 'none') return { proxyUrl: null, proxyUsed: 'none', proxyCountry: null };
    if ((route === 'auto' || route === 'residential') && countryPool && cc) {
      return { proxyUrl: this.next(`country:${cc}`, countryPool), proxyUsed: 'residential', proxyCountry: cc };
    }
    if (route === 'auto') {
      const dc = this.pool('datacenter');
      return dc.length > 0
        ? { proxyUrl: this.next('datacenter', dc), proxyUsed: 'datacenter', proxyCountry: null }
        : { proxyUrl: null, proxyUsed: 'none', proxyCountry: null };
    }
    const urls = this.pool(route);
    if (urls.length === 0) {
      throw new AppError('proxy_unavailable', `proxy route "${route}" was requested but this instance has no ${route} proxies configured`);
    }
    return { proxyUrl: this.next(route, urls), proxyUsed: route, proxyCountry: null };
  }
}
