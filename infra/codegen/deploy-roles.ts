/**
 * What each actor pool asks of a deployment, for the files npm run gen:deploy writes
 * (gen-deploy.ts): its Kubernetes resource requests and limit with where the figures come from
 * (`note`), its replicas, its KEDA lag threshold and ceiling, and its docker-compose replicas.
 * A pool without a row here gets POOL_DEFAULTS: a new family's pool needs no row to be
 * deployed, only one when its figures are measured.
 */
import type { Role } from '../../schemas/topics.js';

export interface PoolDeploy {
  /** The comment above the pool's Deployment: where its figures come from. */
  readonly note: readonly string[];
  /** The Deployment's replicas (and KEDA's floor). */
  readonly replicas: number;
  /** docker-compose's replicas of the pool's service. */
  readonly composeReplicas: number;
  readonly cpu: string;
  readonly memory: string;
  readonly memoryLimit: string;
  /** KEDA's ceiling; at most the partitions of the pool's topics. */
  readonly maxReplicas: number;
  /** Messages waiting per process before KEDA adds one. */
  readonly lagThreshold: number;
  /**
   * Node's own flags for the pool's processes (`node <flags> dist/main.js --role <pool>`), the
   * same in the manifests, docker-compose and the test cluster (test/helpers/cluster.ts).
   */
  readonly nodeFlags: readonly string[];
}

export const POOL_DEFAULTS: PoolDeploy = {
  note: ['Requests: a modest default, not measured for this pool yet.'],
  replicas: 1,
  composeReplicas: 1,
  cpu: '250m',
  memory: '256Mi',
  memoryLimit: '512Mi',
  maxReplicas: 12,
  lagThreshold: 32,
  nodeFlags: [],
};

/** Each pool's figures where they differ from POOL_DEFAULTS. */
export const POOL_DEPLOY: Partial<Record<Exclude<Role, 'gateway'>, Partial<PoolDeploy>>> = {
  frontier: {
    note: [
      'Requests from bench/README.md (scale.ts, the distributed shape): 10-17 ms of CPU a page',
      'in the frontier, which schedules and settles every page of a crawl; one job\'s events are',
      'one partition\'s, so a process settles one job\'s pages one at a time, at most about',
      '50 a second: half a core. It keeps no page in memory (a job\'s frontier lives in Redis).',
    ],
    cpu: '500m',
    maxReplicas: 4,
    lagThreshold: 50,
  },
  fetcher: {
    note: [
      'Requests: a modest default, not measured per pool yet. The fetcher mostly waits on sites',
      '(POOL_CONCURRENCY, 16, pages in flight per process); bench/README.md measures the whole',
      'embedded crawl at 4.15 ms of CPU a page over every role together (crawl.ts, 10,000 pages),',
      'so one fetcher at half a core is far from its CPU while sites answer in 100+ ms.',
    ],
    replicas: 2,
    composeReplicas: 4,
    cpu: '500m',
    memory: '384Mi',
    memoryLimit: '1Gi',
    lagThreshold: 64,
  },
  renderer: {
    note: [
      'Requests from bench/README.md (render.ts): about 165-180 ms of CPU a page on the headless',
      'shell at 11-12 pages/s with RENDER_CONCURRENCY 4, so about 2 cores at full speed; about',
      '25 MB per open page beside Chromium\'s own few hundred MB (recycled every',
      'RENDER_RECYCLE_PAGES renders). 1.5 cores requested, 2 Gi limit.',
    ],
    composeReplicas: 2,
    cpu: '1500m',
    memory: '1Gi',
    memoryLimit: '2Gi',
    lagThreshold: 8,
  },
  parser: {
    note: [
      'Requests from bench/README.md (markdown.ts): 14.8-16.4 ms of CPU a page for main content',
      'and markdown, so one core reads about 60 pages/s; the parser is the CPU-bound pool.',
      'The limit leaves room for its document workers (DOCUMENT_WORKERS 2 x DOCUMENT_MEMORY_MB 512).',
      '',
      'Node runs with --single-threaded-gc: the pool grows by processes, a core each, and V8\'s',
      'parallel collector would put up to 4 helper threads beside every one of them. Measured',
      'with two parsers on two cores draining a backlog (bench/README.md "Scaling apart"): the',
      'pool stored 18-20 pages/s with it against 16.5-16.7 without, at 8-13% less CPU a page.',
      '',
      'A 400 KB page allocates ~22 MB. --max-semi-space-size=64 lets most pages finish between',
      'young-generation collections, and --no-allocation-site-pretenuring keeps V8 from moving',
      'a page\'s nodes to old space, from where they would keep the rest of the finished page',
      'alive through the next collection. With both (and releaseHtml), scavenges cost 2.9-3.9 ms',
      'a page instead of 11.5-15.3 (bench/README.md "Scaling apart"); the new space may use',
      'up to 128 MB more.',
    ],
    nodeFlags: ['--single-threaded-gc', '--no-allocation-site-pretenuring', '--max-semi-space-size=64'],
    composeReplicas: 2,
    cpu: '1000m',
    memory: '512Mi',
    memoryLimit: '2Gi',
    lagThreshold: 64,
  },
  extractor: {
    note: [
      'Requests: a modest default, not measured: the extractor waits on model calls',
      '(EXTRACT_CONCURRENCY at once).',
    ],
    lagThreshold: 16,
  },
  searcher: {
    note: [
      'Requests: a modest default, not measured: the searcher waits on search providers,',
      'social platforms and business registers.',
    ],
  },
  classifier: {
    note: [
      'Requests: a modest default, not measured per pool. bench/README.md (monitors.ts) puts a',
      'monitor check at 44.8 ms of CPU; the offline mention classifier is a small model in memory.',
    ],
  },
  notifier: {
    note: [
      'Requests: a modest default, not measured: the notifier waits on webhook receivers.',
    ],
    lagThreshold: 64,
  },
  intel: {
    note: [
      'Requests: a modest default, not measured: the intel pool waits on registries (RDAP), DNS',
      'and the Wayback Machine.',
    ],
    lagThreshold: 16,
  },
};

/** A pool's figures: its row over POOL_DEFAULTS. */
export const deployOf = (pool: Exclude<Role, 'gateway'>): PoolDeploy => ({ ...POOL_DEFAULTS, ...POOL_DEPLOY[pool] });

/** Node's flags for a process of `role`: its pool's; the defaults' (none) for the gateway or a role that is no pool. */
export function nodeFlagsOf(role: string): readonly string[] {
  return deployOf(role as Exclude<Role, 'gateway'>).nodeFlags;
}
