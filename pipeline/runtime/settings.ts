/**
 * The runtime's own settings (HTTP edge, outbound fetching, bus, store, state, job retention,
 * pools, the renderer's browser, the server secret) and the shape every setting has: name,
 * environment variable, type, default and description. Each family declares its part beside
 * its rules (pipeline/{keys,jobs,webhooks,search,monitors,mentions}/settings.ts,
 * pipeline/clients/models/settings.ts); pipeline/service/settings.ts assembles the one table
 * from the parts, and pipeline/runtime/config.ts parses the environment against it.
 * docs/configuration.md's table is checked against the assembled table by
 * test/docs/reference-tables.test.ts.
 */

/**
 * `urls`: comma-separated http(s) URLs (a proxy pool), read as a frozen array.
 * `countryUrls`: `cc=url|url,cc=url`: two-letter country codes, each with `|`-separated
 * http(s) URLs, read as a frozen object keyed by the upper-case code.
 * Values of both may carry credentials (`http://user:pass@host:port`): error messages never
 * quote them, and `redactedConfig` shows them with the user info masked. A `,` `|` or `=` in
 * a password is written percent-encoded (`%2C`, `%7C`, `%3D`).
 */
export type SettingType = 'integer' | 'boolean' | 'string' | 'enum' | 'credits' | 'urls' | 'countryUrls';

export interface SettingSpec {
  readonly env: string;
  readonly type: SettingType;
  readonly default: string | number | boolean | null;
  readonly description: string;
  readonly min?: number;
  readonly max?: number;
  readonly values?: readonly string[];
  /** Never printed: the value is replaced by `***` wherever config is shown. */
  readonly secret?: boolean;
  /** A `string` setting, when set, has at least this many characters. */
  readonly minLength?: number;
}

/** A part of the settings table (the runtime's, or a family's): setting name → its spec. */
export type SettingsTable = Readonly<Record<string, SettingSpec>>;

export const RUNTIME_SETTINGS = {
  port: {
    env: 'PORT',
    type: 'integer',
    default: 3002,
    min: 0,
    max: 65535,
    description: 'TCP port the HTTP gateway listens on (0 picks a free port).',
  },
  host: {
    env: 'HOST',
    type: 'string',
    default: '0.0.0.0',
    description: 'Address the HTTP gateway binds to.',
  },
  metricsPort: {
    env: 'METRICS_PORT',
    type: 'integer',
    default: null,
    min: 0,
    max: 65535,
    description:
      'TCP port on which this process serves its Prometheus metrics at /metrics (docs/metrics.md), every role on its own; 0 picks a free port. Unset: no metrics server (the counters are still kept).',
  },
  metricsHost: {
    env: 'METRICS_HOST',
    type: 'string',
    default: '127.0.0.1',
    description: 'Address the metrics server binds to: loopback unless set (0.0.0.0 in a container whose port a scraper reaches).',
  },
  dataDir: {
    env: 'DATA_DIR',
    type: 'string',
    default: './data',
    description: 'Directory for everything the embedded mode keeps on disk (keys, ledger, store).',
  },
  logLevel: {
    env: 'LOG_LEVEL',
    type: 'enum',
    default: 'info',
    values: ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'],
    description: 'Lowest level of the JSON log lines written to standard output.',
  },
  fetchAllowPrivate: {
    env: 'FETCH_ALLOW_PRIVATE',
    type: 'boolean',
    default: false,
    description:
      'When true, outbound fetches may reach loopback and private addresses. Off in production; tests and local development turn it on.',
  },
  sourceUrl: {
    env: 'SOURCE_URL',
    type: 'string',
    default: 'https://github.com/web-data-service/web-data-service',
    description: 'Where the source of this running instance is obtained; returned by GET /v1/source (AGPL-3.0 section 13).',
  },
  rateLimitPerMinute: {
    env: 'RATE_LIMIT_PER_MINUTE',
    type: 'integer',
    default: 600,
    min: 0,
    description: 'Requests per minute each key may make (token bucket refill rate); 0 turns rate limiting off.',
  },
  rateLimitBurst: {
    env: 'RATE_LIMIT_BURST',
    type: 'integer',
    default: 100,
    min: 1,
    description: 'Requests a key may make at once before the per-minute rate applies (token bucket size).',
  },
  invalidKeysPerMinute: {
    env: 'INVALID_KEYS_PER_MINUTE',
    type: 'integer',
    default: 30,
    min: 0,
    description:
      'Unknown or revoked API keys one client address may present per minute (token bucket refill rate); past them, and its INVALID_KEYS_BURST, a key the gateway has not already seen gets 429 `rate_limited` with Retry-After. 0 turns this limit off.',
  },
  invalidKeysBurst: {
    env: 'INVALID_KEYS_BURST',
    type: 'integer',
    default: 20,
    min: 1,
    description: 'Unknown or revoked API keys one client address may present at once before INVALID_KEYS_PER_MINUTE applies (token bucket size).',
  },
  bodyLimitBytes: {
    env: 'BODY_LIMIT_BYTES',
    type: 'integer',
    default: 2 * 1024 * 1024,
    min: 1024,
    description: 'Largest JSON request body accepted; larger bodies get 413 `payload_too_large`.',
  },
  bodyMaxDepth: {
    env: 'BODY_MAX_DEPTH',
    type: 'integer',
    default: 64,
    min: 16,
    max: 256,
    description:
      'Deepest nesting of objects and arrays a JSON request body may have, the body itself counting as 1 (a caller\'s JSON Schema, webhook `metadata` and open objects included); deeper bodies get 422 `too_deep`. At most 256.',
  },
  uploadLimitBytes: {
    env: 'UPLOAD_LIMIT_BYTES',
    type: 'integer',
    default: 50 * 1024 * 1024,
    min: 1024,
    description: 'Largest file accepted by POST /v1/parse; larger uploads get 413 `payload_too_large`.',
  },
  fetchMaxBytes: {
    env: 'FETCH_MAX_BYTES',
    type: 'integer',
    default: 15 * 1024 * 1024,
    min: 1024,
    // The body of GET /v1/fetch travels back to the gateway base64-encoded in one event (64 MiB at most).
    max: 32 * 1024 * 1024,
    description:
      'Largest body one fetch reads (scrape and GET /v1/fetch), after decompression; a larger page is refused with `content_too_large`. At most 33554432.',
  },
  proxyDatacenterUrls: {
    env: 'PROXY_DATACENTER_URLS',
    type: 'urls',
    default: null,
    description:
      'Datacenter proxy pool: comma-separated `http://` or `https://` proxy URLs (`http://user:pass@host:port`), used in turn. Serves `proxy: "datacenter"` and, when set, `auto`. Unset: such requests get `proxy_unavailable`.',
  },
  proxyResidentialUrls: {
    env: 'PROXY_RESIDENTIAL_URLS',
    type: 'urls',
    default: null,
    description: 'Residential proxy pool, same syntax as PROXY_DATACENTER_URLS; serves `proxy: "residential"`.',
  },
  proxyMobileUrls: {
    env: 'PROXY_MOBILE_URLS',
    type: 'urls',
    default: null,
    description: 'Mobile proxy pool, same syntax as PROXY_DATACENTER_URLS; serves `proxy: "mobile"`.',
  },
  proxyCountryUrls: {
    env: 'PROXY_COUNTRY_URLS',
    type: 'countryUrls',
    default: null,
    description:
      'Geo-targeted residential pools: `us=http://a:1|http://b:2,de=http://c:3` (two-letter country, `=`, `|`-separated proxy URLs; entries separated by `,`). A request whose `location.country` (fetch: `country`) has a pool goes through it for `residential` and `auto`.',
  },
  bus: {
    env: 'BUS',
    type: 'enum',
    default: 'memory',
    values: ['memory', 'kafka'],
    description: 'Event bus: `memory` (in-process, one process) or `kafka` (KAFKA_BROKERS).',
  },
  kafkaBrokers: {
    env: 'KAFKA_BROKERS',
    type: 'string',
    default: 'localhost:9092',
    description: 'Comma-separated Kafka bootstrap servers, used when BUS=kafka.',
  },
  kafkaClientId: {
    env: 'KAFKA_CLIENT_ID',
    type: 'string',
    default: 'web-data-service',
    description: 'Kafka client id prefix; the role is appended.',
  },
  kafkaConnectTimeoutMs: {
    env: 'KAFKA_CONNECT_TIMEOUT_MS',
    type: 'integer',
    default: 30000,
    min: 0,
    description:
      'How long start-up keeps trying to reach a Kafka broker (BUS=kafka), logging each retry, before the process stops with `bus_unavailable`.',
  },
  kafkaSessionTimeoutMs: {
    env: 'KAFKA_SESSION_TIMEOUT_MS',
    type: 'integer',
    default: 30000,
    min: 3000,
    max: 300000,
    description:
      'A pool process that stops heartbeating for this long (it died) loses its partitions to the other members of its group; lower means faster takeover and more rebalances on a busy machine.',
  },
  kafkaLeaderSyncDelayMs: {
    env: 'KAFKA_LEADER_SYNC_DELAY_MS',
    type: 'integer',
    default: 0,
    min: 0,
    max: 10000,
    description:
      "How long a consumer group's leader waits before sending the group's partition assignment after a rebalance. Apache Kafka and Redpanda need 0. librdkafka's mock cluster (the tests' broker) rejects a follower whose assignment request arrives after the leader's, which costs another rebalance; the tests set 500 so followers go first.",
  },
  kafkaFetchMaxWaitMs: {
    env: 'KAFKA_FETCH_MAX_WAIT_MS',
    type: 'integer',
    default: 1000,
    min: 10,
    max: 10000,
    description:
      "How long a pool's fetch waits at the broker for new events when its partitions are empty. Apache Kafka and Redpanda answer a waiting fetch as soon as an event arrives, so this only bounds idle polling. librdkafka's mock cluster (the tests' broker) answers only when the wait ends: every hop between pools whose partitions ran dry then waits for it, and the scale bench sets 100.",
  },
  schemaRegistryUrl: {
    env: 'SCHEMA_REGISTRY_URL',
    type: 'string',
    default: null,
    description:
      'Confluent Schema Registry URL. When set, events use the Confluent wire format; when unset, Avro single-object encoding.',
  },
  store: {
    env: 'STORE',
    type: 'enum',
    default: 'chdb',
    values: ['chdb', 'clickhouse'],
    description: 'Store: `chdb` (ClickHouse in-process, data under DATA_DIR) or `clickhouse` (a server at CLICKHOUSE_URL).',
  },
  storeIdleReleaseMs: {
    env: 'STORE_IDLE_RELEASE_MS',
    type: 'integer',
    default: 5000,
    min: 0,
    max: 3600000,
    description:
      "STORE=chdb: once no store call has been in flight for this long, the process gives memory it no longer uses back to the kernel, once per idle spell: the clean pages of the engine library and of the node executable that inserts, merges, reads and start-up paged in (read back from the page cache when next needed) and the free pages of the C heap (glibc `malloc_trim`). After a 10,000-page crawl that is ~130 MB of resident memory. 0: never.",
  },
  storeBusyReleaseMs: {
    env: 'STORE_BUSY_RELEASE_MS',
    type: 'integer',
    default: 5000,
    min: 0,
    max: 3600000,
    description:
      "STORE=chdb: while the store is in use, the same memory as STORE_IDLE_RELEASE_MS's (the engine library's pages paged in by rarely run paths, the C heap's free pages) is given back at most this often, without waiting for an idle spell. In a 10,000-page crawl it keeps ~75 MB less resident (the library's pages 113 → 79 MB, the node executable's 58 → 25–27 MB, the C heap's 45 → 33 MB) for 4–7 ms of the main thread each time. 0: only when idle.",
  },
  storeBatchMaxDelayMs: {
    env: 'STORE_BATCH_MAX_DELAY_MS',
    type: 'integer',
    default: 20,
    min: 0,
    max: 10000,
    description:
      "How long a process's rows wait for their table's batch to fill before the insert, for the rows a caller waits on: a crawl or batch page's `job_pages` row (its page is reported to the frontier once the row landed), a scrape's page copy, a job's first and last version, the records an API call writes (monitors, watches, leads runs). Tables nobody waits on (the search index, the link graph, job pages' cache copies, the credit ledger) take their own 1 s windows. Longer: fewer and larger inserts, so fewer parts for ClickHouse to write and merge, at the cost of each job page's latency (a crawl with few pages in flight slows by about as much); see docs/scaling.md \"Inserts\" for a large deployment. 0: a batch is sent as soon as the store is free.",
  },
  storeMallocConf: {
    env: 'STORE_MALLOC_CONF',
    type: 'string',
    default: 'dirty_decay_ms:1000,prof_active:false',
    description:
      "STORE=chdb: options of the engine's own allocator (jemalloc, linked into the chdb library), `name:value` pairs separated by commas, given to it as `JE_MALLOC_CONF` before the library loads. The engine is built with a server's options: freed pages stay resident 5 s (`dirty_decay_ms:5000`) and its heap profiler samples allocations (`prof_active:true`); in a 10,000-page crawl that kept 50–70 MB of freed pages resident. The default gives freed pages back after 1 s and turns the sampling off (250 ms kept ~12 MB less resident through a crawl, but its purges and the page faults after them took ~3% more of the process's CPU). Empty: the engine's own options.",
  },
  clickhouseUrl: {
    env: 'CLICKHOUSE_URL',
    type: 'string',
    default: 'http://localhost:8123',
    description: 'ClickHouse HTTP endpoint, used when STORE=clickhouse.',
  },
  clickhouseUser: {
    env: 'CLICKHOUSE_USER',
    type: 'string',
    default: 'default',
    description: 'ClickHouse user.',
  },
  clickhousePassword: {
    env: 'CLICKHOUSE_PASSWORD',
    type: 'string',
    default: '',
    secret: true,
    description: 'ClickHouse password.',
  },
  clickhouseDatabase: {
    env: 'CLICKHOUSE_DATABASE',
    type: 'string',
    default: 'default',
    description: 'ClickHouse database holding the tables.',
  },
  state: {
    env: 'STATE',
    type: 'enum',
    default: 'file',
    values: ['file', 'memory', 'redis'],
    description:
      'Coordination state: `file` (one process, kept in DATA_DIR/state.sqlite, so jobs resume after a restart; a killed process loses at most the last 50 ms of changes), `memory` (one process, lost with it: tests) or `redis` (REDIS_URL, any number of processes).',
  },
  redisUrl: {
    env: 'REDIS_URL',
    type: 'string',
    default: 'redis://127.0.0.1:6379/0',
    description: 'Redis URL, used when STATE=redis.',
  },
  redisNamespace: {
    env: 'REDIS_NAMESPACE',
    type: 'string',
    default: 'wds',
    description: 'Prefix of every Redis key, so several deployments can share one Redis.',
  },
  requestTimeoutMs: {
    env: 'REQUEST_TIMEOUT_MS',
    type: 'integer',
    default: 330000,
    min: 100,
    description:
      'How long the gateway waits for a worker to answer a synchronous request before answering 504 `upstream_timeout` (the largest scrape `timeout` is 300000).',
  },
  jobRetentionHours: {
    env: 'JOB_RETENTION_HOURS',
    type: 'integer',
    default: 24,
    min: 1,
    max: 8760,
    description:
      "How long a crawl or batch job is answered after it starts (its `expiresAt`): status, pages and errors; its coordination state expires with it. Later it is a 404 `not_found`, and the store drops its rows (`jobs`, `job_pages`, `job_errors`) at its next merge past that time (a ClickHouse TTL set at start-up).",
  },
  poolConcurrency: {
    env: 'POOL_CONCURRENCY',
    type: 'integer',
    default: 16,
    min: 1,
    max: 1000,
    description: 'Events each actor pool process handles at once (backpressure bound).',
  },
  heapGrowthPercent: {
    env: 'HEAP_GROWTH_PERCENT',
    type: 'integer',
    default: 50,
    min: 0,
    max: 300,
    description:
      'How far the JavaScript heap may grow past what survived the last full garbage collection before the next one, in percent. V8 alone lets it grow up to 4x on a machine with much memory; a crawl keeps ~55 MB live and grew to ~200 MB. 50: the heap stays near 1.5x its live size for a little more collection work. 0: V8 decides.',
  },
  renderConcurrency: {
    env: 'RENDER_CONCURRENCY',
    type: 'integer',
    default: 4,
    min: 1,
    max: 64,
    description: 'Pages each renderer process keeps open at once in its one warm Chromium (each in its own browser context); further renders wait.',
  },
  renderChromiumPath: {
    env: 'RENDER_CHROMIUM_PATH',
    type: 'string',
    default: null,
    description:
      'The Chromium executable the renderer launches. Unset: `/usr/bin/chromium-headless-shell` when it exists (Debian: `apt-get install chromium-headless-shell`; the same Chromium without the browser UI, about half the CPU per render), else `/usr/bin/chromium` (`apt-get install chromium`). No browser is downloaded.',
  },
  renderRecyclePages: {
    env: 'RENDER_RECYCLE_PAGES',
    type: 'integer',
    default: 500,
    min: 0,
    max: 1000000,
    description:
      "Renders each renderer process starts on one Chromium before the next render starts on a freshly launched one (what a browser leaks over a long life goes with it). The old browser closes once its renders in flight have finished; while it is still finishing, the new one takes on renders past this count rather than a third browser being launched. 0: never recycled (a crashed browser is still relaunched).",
  },
  webhookSecret: {
    env: 'WEBHOOK_SECRET',
    type: 'string',
    default: null,
    secret: true,
    minLength: 32,
    description:
      "Server secret from which each key's webhook signing secret is derived (HMAC-SHA256 of the key id), and the key callers' own model keys are sealed with while a POST /v1/extract is under way (AES-256-GCM, HKDF-derived). Unset: a random one is generated once into DATA_DIR/webhook-secret. Set it (at least 32 characters) in distributed mode, the same on every gateway, extractor and notifier and wherever the keys CLI runs.",
  },
} as const satisfies SettingsTable;
