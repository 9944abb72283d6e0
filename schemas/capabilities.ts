/**
 * What a build's actor pools can complete, by name: the contract between the actors and the
 * gateway. Each actor lists the capabilities it serves (main.ts ACTORS `serves`); each
 * operation of the gateway's table (gateway/wiring.ts) names those it needs, and the
 * gateway serves it only in a build whose actors (all roles) serve them all, answering 501
 * `not_implemented` otherwise.
 *
 * - `scrape`: pages are read into documents (the parser; with the fetcher, POST /v1/scrape).
 * - `fetch`: pages and bytes are fetched over HTTP (the fetcher; GET /v1/fetch).
 * - `parse`: uploaded files are read (the parser; POST /v1/parse).
 * - `map`: sites are mapped (the frontier; POST /v1/map).
 * - `jobs`: crawl and batch jobs are scheduled (the frontier; with `scrape`, the job operations).
 * - `render`: pages are read in a browser (the renderer; browser scrape options).
 * - `webhooks`: job webhooks are delivered (the notifier; a job's `webhook`).
 * - `extract`: models finish pages' extraction (the extractor; the `json`, `summary` and
 *   `changeTracking` formats, POST /v1/extract).
 * - `search`: web, SERP and places questions are answered from the configured providers and
 *   the local index (the searcher; POST /v1/search with `scrape` for page content, /v1/serp,
 *   /v1/places/search).
 * - `monitors`: monitor checks are run and judged (the classifier; with `jobs`, the frontier
 *   that schedules them, and `scrape` for their pages: the monitor operations).
 * - `mentions`: mention watches' posts are sorted into categories and stored (the
 *   classifier; with `search`, the searcher that collects them, and `jobs`, the frontier that
 *   schedules them: the watch and mention operations).
 * - `social`: the social catalog's endpoints are answered from the platforms (the searcher,
 *   with the clients mention watches use: GET /v1/social, POST /v1/social/{platform}/{endpoint}).
 * - `leads`: Find Leads sources are listed and runs carried out (the searcher: OpenStreetMap
 *   and the open business registers; with `intel` for the contacts of each lead's website:
 *   the leads operations).
 * - `intel`: domains are looked up, reported on and screened (the intel pool: registries
 *   over RDAP, DNS, the Wayback Machine and the link graph; with `scrape` for the pages a
 *   report reads: the domain operations).
 */
export const CAPABILITIES = ['scrape', 'fetch', 'parse', 'map', 'jobs', 'render', 'webhooks', 'extract', 'search', 'monitors', 'mentions', 'social', 'leads', 'intel'] as const;

export type Capability = (typeof CAPABILITIES)[number];
