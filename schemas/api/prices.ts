/**
 * What the service charges, in credits: every price, defined once, beside the contract it
 * implements. The spec's "Charging rules" (web-data-service-api.md, section Limits) are part
 * of the API's contract; each price names the rule it implements by number and quotes what
 * the rule says of it (test/schemas/prices.test.ts finds the quote in that rule and checks
 * any figure it states). A price the spec leaves to the service ("Credit prices per unit
 * beyond those stated: not shown") has no rule; the operation's description in
 * schemas/api/operations.ts states it, and the same test checks the two agree.
 *
 * The gateway reserves from these before the work (gateway/wiring.ts, each operation's
 * price), the actors charge them in their replies, and a job's frontier holds them per page.
 * Rule 1 (a failed request is not charged) is the gateway's settlement (gateway/routes.ts).
 */

/** A rule of the spec's "Charging rules", by its number. */
export type ChargingRule = 1 | 2 | 3 | 4 | 5 | 6 | 7 | 8 | 9 | 10 | 11;

export interface Price {
  /** Credits one unit costs. */
  readonly credits: number;
  /** The charging rule this price implements, or null when the spec states no price for it. */
  readonly rule: ChargingRule | null;
  /** What that rule says of this price, word for word (null with no rule). */
  readonly says: string | null;
}

export const PRICES = {
  /**
   * A page fetched fresh over HTTP: a scrape, a page of a crawl or batch job, and the bytes of
   * GET /v1/fetch ("charged like any fetched page"). The spec states it for crawl pages.
   */
  freshPage: { credits: 1, rule: 4, says: 'Crawl is charged from 1 credit a page' },
  /** A page served from the caller's own cache within `maxAge`. */
  cachedPage: { credits: 0, rule: 2, says: 'A page served from the cache within `maxAge` is free' },
  /** A page served from the shared index (another key's shareable copy). */
  indexPage: { credits: 1, rule: 2, says: 'a page served from the shared index costs 1 credit' },
  /**
   * A page read in a browser (`waitFor`, `actions`, the `screenshot` or `network` format:
   * pipeline/pages/rendering.ts `needsBrowser`). The spec gives no figure: a render holds a
   * Chromium page for seconds where a fetch holds a socket for milliseconds, and 5 is the
   * ratio hosted scraping APIs commonly charge for JavaScript rendering.
   */
  browserPage: { credits: 5, rule: 3, says: 'billed as a browser page' },
  /** One POST /v1/map, whatever it finds. */
  map: { credits: 1, rule: 5, says: 'Map is one flat charge per call' },
  /** One file read by POST /v1/parse. */
  parsedFile: { credits: 1, rule: null, says: null },
  /**
   * A page whose `json` or `summary` the operator's model (MODEL_*) answered for: the fields
   * the page's markup and rules left empty, a `prompt`, an abstractive summary. Charged on
   * top of the page's own price, only when the model was called and answered; a page answered
   * from markup alone costs nothing more. The spec gives no figure: 4 makes a model-read page
   * cost 5, what hosted scrapers charge for LLM extraction.
   */
  operatorModelPage: { credits: 4, rule: null, says: null },
  /** A page a caller's own `model` (POST /v1/extract) answered for: nothing on top of the page. */
  callerModelPage: { credits: 0, rule: 9, says: 'model calls are billed to that key at no credit cost' },
  /**
   * One web search (POST /v1/search) or one SERP page (POST /v1/serp) a provider answered,
   * whichever provider it was (the local index included). The pages read for a search's
   * `scrapeOptions` are charged on top, each as the scrape it is.
   */
  searchCall: { credits: 1, rule: null, says: null },
  /** One places search (POST /v1/places/search) answered from OpenStreetMap, whatever it finds. */
  placesCall: { credits: 1, rule: null, says: null },
  /**
   * One collection of a mention watch in which at least one platform answered, however many
   * mentions it stores (a collection where none answered is not charged); a test of watch
   * fields costs the same, and nothing when no platform answered.
   */
  mentionCollection: { credits: 1, rule: null, says: null },
  /**
   * One call of a social endpoint (POST /v1/social/{platform}/{endpoint}, schemas/api/social.ts)
   * that came back with data: at least one post or comment, a profile, a repository. An
   * answer with nothing in it, and a failed call, cost nothing. The spec gives no figure: 1,
   * as a search call.
   */
  socialCall: { credits: 1, rule: 10, says: 'Social endpoints are charged only when data comes back' },
  /**
   * One domain lookup (POST /v1/domain) in which at least one section it asked for answered
   * (registration, DNS, backlinks); a lookup where every section failed costs nothing.
   */
  domainLookup: { credits: 1, rule: null, says: null },
  /** A name of a domain screen whose registry answered (a record or none); invalid names, duplicates and unanswered names are free. */
  screenedName: { credits: 1, rule: 6, says: 'Domain screen: 1 credit per name the registry answers for' },
  /**
   * A `quick` domain report: registration, DNS, mail records and today's website (one page).
   * The spec states a flat price per depth and no figure: each depth costs about the pages it
   * reads at a fresh page's price.
   */
  reportQuick: { credits: 2, rule: 7, says: 'one flat price per depth' },
  /** A `buyer` report: `quick`, 6 archived snapshots included, known backlinks and 20 linking pages checked (about 25 pages). */
  reportBuyer: { credits: 25, rule: 7, says: 'one flat price per depth' },
  /** A `deep` report: `buyer` with 12 snapshots included and 50 linking pages checked (about 60 pages). */
  reportDeep: { credits: 60, rule: 7, says: 'one flat price per depth' },
  /** An archived snapshot a report reads beyond those its depth includes (`snapshots` above 6 or 12), charged when it is loaded. */
  extraSnapshot: { credits: 1, rule: 7, says: 'each snapshot beyond those costs 1 credit' },
  /** A snapshot a report included, loaded later by POST /v1/domain/history/snapshots within INCLUDED_SNAPSHOT_DAYS of the report. */
  includedSnapshot: { credits: 0, rule: 8, says: 'snapshots included in the report are free for 7 days' },
  /** A snapshot loaded by POST /v1/domain/history/snapshots that the report did not include, or past the included ones' 7 days. */
  loadedSnapshot: { credits: 1, rule: 8, says: 'beyond those each snapshot loaded costs 1 credit' },
  /** A snapshot asked for again that this key has loaded already: answered from the store. */
  storedSnapshot: { credits: 0, rule: 8, says: 'one already loaded is free' },
  /**
   * A page the site answered (2xx) while POST /v1/company, /v1/products or /v1/posts read it:
   * its home page, robots.txt, a sitemap, an API page (250 Shopify products, 100 WooCommerce
   * products or WordPress posts), a feed, a product's or post's own page. Probes the site
   * answers 404 and pages it does not answer are free, and so is a company answered from the
   * key's stored answer (COMPANY_CACHE_HOURS). A call reads at most COMPANY_MAX_PAGES (10), or
   * for a listing 10 plus one page an item asked for, at most LISTING_MAX_PAGES (120): that
   * many credits are reserved and the pages read are charged. The spec gives no figure: a
   * page read costs what a fetched page does.
   */
  sitePage: { credits: 1, rule: null, says: null },
  /**
   * A lead a Find Leads run delivered (POST /v1/leads), its contacts from its website
   * included: `limit` leads are held when the run starts, and the leads delivered charged
   * when it ends (a cancelled run keeps and pays for the leads it had; a queued run cancelled
   * costs nothing). The spec gives no figure: 1, what a fetched page costs.
   */
  lead: { credits: 1, rule: 10, says: 'Find Leads is charged per lead' },
} as const satisfies Record<string, Price>;

/** Archived snapshots each report depth includes in its flat price (rule 7: "6 for `buyer`, 12 for `deep`"). */
export const REPORT_INCLUDED_SNAPSHOTS: Readonly<Record<'quick' | 'buyer' | 'deep', number>> = { quick: 0, buyer: 6, deep: 12 };

/** How long a report's included snapshots load free (rule 8: "free for 7 days"). */
export const INCLUDED_SNAPSHOT_DAYS = 7;

/** A report's flat price by its depth (rule 7). */
export const REPORT_PRICES: Readonly<Record<'quick' | 'buyer' | 'deep', Price>> = { quick: PRICES.reportQuick, buyer: PRICES.reportBuyer, deep: PRICES.reportDeep };

export type PriceName = keyof typeof PRICES;

/**
 * A page's price by where it came from (the `source` of its `cost`), before rendering: rule
 * 2 for a cached or indexed copy, a fresh page otherwise.
 */
export const SOURCE_CREDITS: Readonly<Record<'fresh' | 'cache' | 'index', number>> = {
  fresh: PRICES.freshPage.credits,
  cache: PRICES.cachedPage.credits,
  index: PRICES.indexPage.credits,
};
