/**
 * Every topic of the pipeline, declared once: its name, the event it carries, its partition
 * count and key, and which roles write and read it. The bus, the Kafka topic definitions
 * (infra/kafka/topics.json is generated from this table) and the docs all read it.
 */
export const ROLES = ['gateway', 'frontier', 'fetcher', 'renderer', 'parser', 'extractor', 'searcher', 'classifier', 'notifier', 'intel'] as const;
export type Role = (typeof ROLES)[number];

export interface TopicSpec {
  readonly name: string;
  /** Event type carried (schemas/events/<event>/), or `any` for the dead-letter topic. */
  readonly event: string;
  readonly partitions: number;
  /** What the partition key is; messages with one key keep their order. */
  readonly key: string;
  readonly producers: readonly Role[];
  readonly consumers: readonly Role[];
  readonly description: string;
}

export const TOPICS = {
  scrapeRequested: {
    name: 'wds.scrape.requested',
    event: 'ScrapeRequested',
    partitions: 12,
    key: "requestId (a job's pages too: they spread over the partitions; the frontier bounds how many are in flight)",
    producers: ['gateway', 'frontier', 'intel'],
    consumers: ['fetcher'],
    description: 'A page to read: URL, scrape options, who to answer.',
  },
  renderRequested: {
    name: 'wds.render.requested',
    event: 'ScrapeRequested',
    partitions: 12,
    key: "requestId (a job's pages too, as for scrapeRequested)",
    producers: ['gateway', 'frontier', 'fetcher'],
    consumers: ['renderer'],
    description: 'A page to read in a browser (waitFor, actions, the screenshot or network format): the same event as scrapeRequested, routed here by its producer with pipeline/pages/rendering.ts needsBrowser; or, escalated by the fetcher, a page whose plain fetch met a challenge frame (needsChallengeRender).',
  },
  pageFetched: {
    name: 'wds.page.fetched',
    event: 'PageFetched',
    partitions: 12,
    key: 'requestId',
    producers: ['fetcher', 'renderer'],
    consumers: ['parser'],
    description: 'Raw bytes of a fetched or rendered page, with status and headers.',
  },
  fetchRequested: {
    name: 'wds.fetch.requested',
    event: 'FetchRequested',
    partitions: 12,
    key: 'requestId',
    producers: ['gateway', 'intel'],
    consumers: ['fetcher'],
    description: 'GET /v1/fetch, and the intel pool reading a site\'s pages (actors/intel/site-pages.ts): a URL whose bytes are wanted as they are; the fetcher answers the reply topic.',
  },
  parseRequested: {
    name: 'wds.parse.requested',
    event: 'ParseRequested',
    partitions: 12,
    key: 'requestId',
    producers: ['gateway'],
    consumers: ['parser'],
    description: 'POST /v1/parse: an uploaded file (bytes, name, declared type) to read into a document; the parser answers the reply topic.',
  },
  mapRequested: {
    name: 'wds.map.requested',
    event: 'MapRequested',
    partitions: 12,
    key: 'requestId',
    producers: ['gateway'],
    consumers: ['frontier'],
    description: 'POST /v1/map: a site whose URLs the frontier discovers from robots.txt, sitemaps and a shallow link walk; the frontier answers the reply topic.',
  },
  extractRequested: {
    name: 'wds.extract.requested',
    event: 'ExtractRequested',
    partitions: 12,
    key: 'requestId',
    producers: ['parser'],
    consumers: ['extractor'],
    description:
      "A page the parser has read whose answer still needs a model (json fields markup and page rules left empty, a prompt, an abstractive summary): the extractor pool calls the model, then answers the reply topic and files a job's page as the parser would have. Model calls take seconds; on their own topic and pool they never hold the parser's slots.",
  },
  searchRequested: {
    name: 'wds.search.requested',
    event: 'SearchRequested',
    partitions: 12,
    key: 'requestId',
    producers: ['gateway'],
    consumers: ['searcher'],
    description:
      "POST /v1/search, /v1/serp and /v1/places/search: a question for the searcher pool, which asks the configured providers in order (SearXNG, Brave, a SERP API, the local index; Nominatim and Overpass for places), falls back on a provider's failure and answers the reply topic. Provider calls wait on outside services; on their own pool they never hold the parser's or fetcher's slots.",
  },
  socialRequested: {
    name: 'wds.social.requested',
    event: 'SocialRequested',
    partitions: 12,
    key: 'requestId',
    producers: ['gateway'],
    consumers: ['searcher'],
    description:
      'POST /v1/social/{platform}/{endpoint}: one call of the social catalog (schemas/api/social.ts) for the searcher pool, which asks the platform through the client mention watches share and answers the reply topic. Platform calls wait on outside services, as search provider calls do: the same pool.',
  },
  leadsRequested: {
    name: 'wds.leads.requested',
    event: 'LeadsRequested',
    partitions: 12,
    key: "the run's id",
    producers: ['gateway'],
    consumers: ['searcher'],
    description:
      'The Find Leads runs of POST /v1/leads (kind `run`), each carried out to its end by the searcher pool: the sources are outside services, as search providers are; a lead\'s contacts are asked of the intel pool. A run holds one of the searcher\'s handler slots (and its own key) for up to a few minutes, so nothing quick shares this topic.',
  },
  leadsSources: {
    name: 'wds.leads.sources',
    event: 'LeadsRequested',
    partitions: 12,
    key: 'requestId',
    producers: ['gateway'],
    consumers: ['searcher'],
    description:
      'GET /v1/leads/sources (kind `sources`): a place resolved to its country by the searcher, answered on the reply topic; its own topic, so a question never waits behind a run.',
  },
  monitorChecks: {
    name: 'wds.monitor.checks',
    event: 'MonitorCheckRequested',
    partitions: 12,
    key: 'monitorId (one monitor\'s checks in order)',
    producers: ['gateway', 'frontier'],
    consumers: ['classifier'],
    description:
      "A monitor check to run: the frontier queues one when a monitor's schedule is due (and again, with the same check id, to resume a check a crash interrupted), the gateway for POST /v1/monitor/{id}/run. The classifier reads the pages through the scrape path, judges each against its previous snapshot and stores the results.",
  },
  monitorEvents: {
    name: 'wds.monitor.events',
    event: 'MonitorChecked',
    partitions: 12,
    key: 'monitorId',
    producers: ['classifier'],
    consumers: ['notifier'],
    description: "A completed check that found pages new, changed, removed or failing, of a monitor with a webhook: the notifier delivers it, signed and retried.",
  },
  watchCollections: {
    name: 'wds.watch.collections',
    event: 'WatchCollectRequested',
    partitions: 12,
    key: "watchId (one watch's collections in order; a test: its request id)",
    producers: ['gateway', 'frontier'],
    consumers: ['searcher'],
    description:
      "A mention watch to collect: the frontier queues one when a watch's schedule is due (and again, with the same collection id, to resume one a crash interrupted); the gateway sends one to test watch fields. The searcher asks the watch's platforms, keeps the posts that match the watch and were not stored before, and passes them on as MentionsFound. Platform calls wait on outside services, as search provider calls do: the same pool.",
  },
  mentionsFound: {
    name: 'wds.mentions.found',
    event: 'MentionsFound',
    partitions: 12,
    key: 'watchId (a test: its request id)',
    producers: ['searcher'],
    consumers: ['classifier'],
    description: "The posts a collection found for a watch: the classifier sorts each into a category, stores the new mentions and completes the collection; for a test it answers the reply topic and stores nothing.",
  },
  mentionEvents: {
    name: 'wds.mention.events',
    event: 'MentionsStored',
    partitions: 12,
    key: 'watchId',
    producers: ['classifier'],
    consumers: ['notifier'],
    description: 'A batch of new mentions of a watch with a webhook: the notifier delivers it, signed and retried.',
  },
  intelRequested: {
    name: 'wds.intel.requested',
    event: 'IntelRequested',
    partitions: 12,
    key: 'requestId',
    producers: ['gateway'],
    consumers: ['intel'],
    description:
      "POST /v1/domain, /v1/domain/report, /v1/domain/history/snapshots and /v1/domain/screen: a question for the intel pool, which asks the registries (RDAP), DNS, the Wayback Machine and the link graph, reads the pages a report needs through the scrape path, and answers the reply topic. Registry and archive calls wait on outside services for seconds; on their own pool they never hold the searcher's or the parser's slots.",
  },
  jobEvents: {
    name: 'wds.job.events',
    event: 'JobEvent',
    partitions: 12,
    key: 'jobId',
    producers: ['gateway', 'frontier', 'fetcher', 'parser', 'extractor'],
    consumers: ['frontier', 'notifier'],
    description:
      'Job lifecycle and progress: started and cancelled (gateway); page (parser) and pageFailed (fetcher, parser) for each page, which the frontier counts; completed and failed (frontier).',
  },
  replies: {
    name: 'wds.replies',
    event: 'Reply',
    partitions: 12,
    key: 'correlationId',
    producers: ['frontier', 'fetcher', 'renderer', 'parser', 'extractor', 'searcher', 'classifier', 'notifier', 'intel'],
    consumers: ['gateway', 'intel'],
    description: 'Answers to synchronous requests; each gateway (and each intel process, for the pages a domain report reads) reads them all and keeps its own.',
  },
  testPings: {
    name: 'wds.test.pings',
    event: 'TestPing',
    partitions: 12,
    key: 'id',
    producers: ['gateway'],
    consumers: ['gateway'],
    description: 'Runtime self-tests and benchmarks only; no production actor reads it.',
  },
  deadLetters: {
    name: 'wds.dead-letters',
    event: 'any',
    partitions: 3,
    key: 'the original message key',
    producers: ['gateway', 'frontier', 'fetcher', 'renderer', 'parser', 'extractor', 'searcher', 'classifier', 'notifier', 'intel'],
    consumers: [],
    description:
      'Events an actor could not process after its retries, or could not decode: the original bytes and headers plus x-wds-error-code, x-wds-error-message, x-wds-attempts, x-wds-source-topic, x-wds-group, x-wds-failed-at.',
  },
} as const satisfies Record<string, TopicSpec>;

export type TopicKey = keyof typeof TOPICS;

/** Headers the runtime sets on events. */
export const HEADERS = {
  requestId: 'x-request-id',
  /** The blob id of a payload that travels by reference (see pipeline/runtime/blobs.ts). */
  blobRef: 'x-wds-blob',
  errorCode: 'x-wds-error-code',
  errorMessage: 'x-wds-error-message',
  attempts: 'x-wds-attempts',
  sourceTopic: 'x-wds-source-topic',
  group: 'x-wds-group',
  failedAt: 'x-wds-failed-at',
} as const;
