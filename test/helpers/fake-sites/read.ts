/**
 * A `ReadPage` for the site readers' tests and benches over the runtime's own HTTP stack
 * (pipeline/runtime/net/http.ts: the guard, redirects, size cap; read.ts `decodeText` for the
 * charset, as the service's own ReadPage decodes; a JSON read `lean`, as the service's own
 * asks it of the fetcher), with private
 * addresses allowed so that the local fake sites can be read. The service's own ReadPage goes
 * through the fetch path instead (the fetcher's guard follows FETCH_ALLOW_PRIVATE).
 */
import { HttpFetcher } from '../../../pipeline/runtime/net/http.js';
import { NetGuard } from '../../../pipeline/runtime/net/guard.js';
import { decodeText, type ReadPage } from '../../../pipeline/intel/site/read.js';
import { startFakeSite, type FakeSite, type Routes } from './server.js';

export function localFetcher(): HttpFetcher {
  return new HttpFetcher({ guard: new NetGuard({ allowPrivate: true }), retry: { attempts: 1, baseDelayMs: 5, maxDelayMs: 5 } });
}

/** Reads through `http`; a failed fetch is null. `log` collects the URLs asked, in order. */
export function readOver(http: HttpFetcher, options: { readonly timeoutMs?: number; readonly log?: string[] } = {}): ReadPage {
  return async (url, opts) => {
    options.log?.push(url);
    try {
      const res = await http.fetch({ url, timeoutMs: options.timeoutMs ?? 10_000, content: null, proxy: 'none', lean: opts.accept === 'json', ...(opts.signal ? { signal: opts.signal } : {}) });
      return { url: res.finalUrl, status: res.statusCode, contentType: res.contentType, body: decodeText(res.body, res.headers['content-type'] ?? res.contentType) };
    } catch {
      return null;
    }
  };
}

/** A fetcher for the local fake sites, and the sites one test file starts; `close` closes all of them. */
export function localSites(): { readonly http: HttpFetcher; site(routes: Routes): Promise<FakeSite>; close(): Promise<void> } {
  const http = localFetcher();
  const open: FakeSite[] = [];
  return {
    http,
    async site(routes) {
      const s = await startFakeSite(routes);
      open.push(s);
      return s;
    },
    async close() {
      await Promise.all(open.map((s) => s.close()));
      http.close();
    },
  };
}
