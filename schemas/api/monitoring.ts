/**
 * Request schemas of monitoring: monitors and their checks, mention watches and mentions.
 * Watch bodies and the mention status update are "not shown" in the spec; the shapes here
 * are documented in each description.
 */
import { Type, type TSchema } from '@sinclair/typebox';
import { Closed, Cursor, HttpUrl, Nullable, Pagination, StringEnum, withError } from './common.js';
import { op, type Operation } from './operation-row.js';

const monitorFields = {
  name: Type.String({ minLength: 1, maxLength: 120 }),
  url: Type.Optional(Nullable(HttpUrl('A page to check.'))),
  urls: Type.Optional(Nullable(Type.Array(HttpUrl('A page to check.'), { maxItems: 50 }))),
  intervalMinutes: Type.Optional(Type.Integer({ minimum: 5, maximum: 10080, default: 60 })),
  goal: Type.Optional(Nullable(Type.String({ maxLength: 1000 }), { description: 'Stored and returned; does not affect which changes are reported.' })),
  webhook: Type.Optional(Nullable(HttpUrl('POSTed to when a check finds a page changed, new or failing.'))),
};

export const MONITOR_STATUSES = ['active', 'paused'] as const;
export type MonitorStatus = (typeof MONITOR_STATUSES)[number];

export const MonitorBody = withError(
  Closed(
    monitorFields,
    {
      description: 'Give `url`, `urls`, or both.',
      anyOf: [
        { required: ['url'], properties: { url: { type: 'string' } } },
        { required: ['urls'], properties: { urls: { type: 'array', minItems: 1 } } },
      ],
    },
  ),
  { type: 'missing', msg: 'give url, urls, or both' },
);

export const MonitorUpdateBody = Type.Partial(
  Type.Object({
    ...(Object.fromEntries(Object.entries(monitorFields).map(([k, v]) => [k, withoutDefault(v)])) as typeof monitorFields),
    status: StringEnum(MONITOR_STATUSES, { description: '`paused`: no check runs, scheduled or manual, until it is `active` again.' }),
  }),
  {
    additionalProperties: false,
    minProperties: 1,
    description: 'Fields to change; the others keep their values. At least one field; the monitor must keep at least one page (`url` or `urls`).',
  },
);

export const ChecksQuery = Type.Object({ limit: Type.Optional(Pagination(100, 20)) });

export const MENTION_PLATFORMS = ['web', 'feeds', 'reddit', 'hackernews', 'x', 'bluesky', 'youtube', 'github'] as const;
export const MENTION_CATEGORIES = ['bug_report', 'complaint', 'question', 'buying_intent', 'praise', 'competitor', 'other'] as const;
export const MENTION_STATUSES = ['new', 'seen', 'irrelevant', 'done'] as const;
export type MentionCategory = (typeof MENTION_CATEGORIES)[number];
export type MentionStatus = (typeof MENTION_STATUSES)[number];

const Terms = (description: string, maxItems: number) =>
  Type.Array(Type.String({ minLength: 1, maxLength: 200 }), { maxItems, description });

const watchFields = {
  name: Type.String({ minLength: 1, maxLength: 120 }),
  keywords: Type.Array(Type.String({ minLength: 1, maxLength: 200 }), {
    minItems: 1,
    maxItems: 20,
    description: 'Terms to look for (brand, product, handle). A mention contains at least one.',
  }),
  excludeKeywords: Type.Optional(Terms('A mention containing any of these is dropped.', 50)),
  competitors: Type.Optional(Terms('Competitor names; mentions comparing with them are categorised `competitor`.', 20)),
  platforms: Type.Optional(
    Type.Array(StringEnum(MENTION_PLATFORMS), { uniqueItems: true, minItems: 1, maxItems: MENTION_PLATFORMS.length, description: 'Where to look (default: every platform).' }),
  ),
  languages: Type.Optional(Nullable(Type.Array(Type.String({ minLength: 2, maxLength: 35 }), { maxItems: 20 }), { description: 'Keep mentions in these languages only.' })),
  context: Type.Optional(Nullable(Type.String({ maxLength: 1000 }), { description: 'What the product is, to tell relevant mentions from namesakes.' })),
  intervalMinutes: Type.Optional(Type.Integer({ minimum: 5, maximum: 10080, default: 60 })),
  webhook: Type.Optional(Nullable(HttpUrl('POSTed to with each batch of new mentions.'))),
  feeds: Type.Optional(Type.Array(HttpUrl('An RSS, Atom or JSON Feed URL.'), { maxItems: 20, description: 'Feeds the `feeds` platform reads (besides those discovered on `sites`).' })),
  sites: Type.Optional(Type.Array(HttpUrl('A site whose feeds are discovered (its `<link rel="alternate">` feeds, else /feed, /rss.xml, /atom.xml …).'), { maxItems: 20, description: 'Sites whose feeds the `feeds` platform reads.' })),
};

export const WatchBody = Closed(watchFields, {
  description: 'A mention watch: keywords to look for on the chosen platforms, checked every `intervalMinutes`.',
});

/** The same field without its default: an update must not reset fields it does not name. */
function withoutDefault<T extends TSchema>(schema: T): T {
  const { default: _ignored, ...rest } = schema as T & { default?: unknown };
  return rest as T;
}

export const WatchUpdateBody = Type.Partial(Type.Object(Object.fromEntries(Object.entries(watchFields).map(([k, v]) => [k, withoutDefault(v)])) as typeof watchFields), {
  additionalProperties: false,
  minProperties: 1,
  description: 'Fields to change; the others keep their values. At least one field.',
});

export const MentionsQuery = Type.Object({
  watch_id: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
  category: Type.Optional(StringEnum(MENTION_CATEGORIES)),
  platform: Type.Optional(StringEnum(MENTION_PLATFORMS)),
  status: Type.Optional(StringEnum(MENTION_STATUSES)),
  since: Type.Optional(Type.String({ format: 'date-time', description: 'Only mentions found at or after this time (RFC 3339).' })),
  cursor: Type.Optional(Cursor),
  limit: Type.Optional(Pagination(100, 50)),
});

export const MentionStatusBody = Closed(
  { status: StringEnum(MENTION_STATUSES) },
  { description: 'Set the mention status. Any status may move to any other.' },
);

/** The monitoring operations (monitors, mention watches, mentions): their rows of the operation table (schemas/api/operations.ts). */
export const MONITORING_OPERATIONS = [
  op({ id: 'monitorCreate', method: 'POST', path: '/v1/monitor', tag: 'Monitoring', summary: 'Create a monitor', body: MonitorBody, pricing: 'free' }),
  op({ id: 'monitorList', method: 'GET', path: '/v1/monitor', tag: 'Monitoring', summary: 'List monitors', pricing: 'free' }),
  op({ id: 'monitorGet', method: 'GET', path: '/v1/monitor/{monitor_id}', tag: 'Monitoring', summary: 'Get a monitor', pricing: 'free' }),
  op({
    id: 'monitorUpdate',
    method: 'PATCH',
    path: '/v1/monitor/{monitor_id}',
    tag: 'Monitoring',
    summary: 'Update, pause or resume a monitor',
    body: MonitorUpdateBody,
    pricing: 'free',
    description:
      'Changes only the fields the body names, within the limits of POST /v1/monitor; the monitor must keep at least one page. New pages, name, goal or webhook apply from the next check (a check already queued or running keeps what it started with); a new `intervalMinutes` moves the next check to one new interval after the last was due (at once if that has passed). `status: "paused"` takes the monitor off its schedule: no scheduled check starts and POST /run answers 409 `monitor_paused` (a check already running finishes). `status: "active"` resumes it: the next check is due when it would have been (one interval after the last scheduled check was due), or at once if that passed while it was paused. Free.',
  }),
  op({ id: 'monitorDelete', method: 'DELETE', path: '/v1/monitor/{monitor_id}', tag: 'Monitoring', summary: 'Delete a monitor', pricing: 'free' }),
  op({ id: 'monitorRun', method: 'POST', path: '/v1/monitor/{monitor_id}/run', tag: 'Monitoring', summary: "Run a monitor's check now" }),
  op({ id: 'monitorChecks', method: 'GET', path: '/v1/monitor/{monitor_id}/checks', tag: 'Monitoring', summary: "List a monitor's checks", query: ChecksQuery, pricing: 'free' }),
  op({
    id: 'watchCreate',
    method: 'POST',
    path: '/v1/mentions/watches',
    tag: 'Monitoring',
    summary: 'Create a watch',
    body: WatchBody,
    pricing: 'free',
    description:
      'Saves a mention watch and collects at once (reaching back 7 days), then every `intervalMinutes`: each platform of `platforms` (default all eight) is asked for posts containing a keyword, newer than the last collection; posts with an excluded keyword, in another language than `languages`, or off the `context` are dropped; each kept post is sorted into a category and stored once as a mention (GET /v1/mentions), and `webhook` receives each batch of new mentions (`mentions.found`, signed and retried). ' +
      'The answer is the watch: its fields, `platformStatus` (per platform, whether it is configured, and the credentials it lacks), `nextCollectionAt`, `lastCollectionAt` and `lastCollection` (status, per-platform outcome and errors, mentions found, credits). Creating is free; each collection in which a platform answered costs 1 credit (see POST /v1/mentions/test).',
  }),
  op({ id: 'watchList', method: 'GET', path: '/v1/mentions/watches', tag: 'Monitoring', summary: 'List watches', pricing: 'free' }),
  op({ id: 'watchGet', method: 'GET', path: '/v1/mentions/watches/{watch_id}', tag: 'Monitoring', summary: 'Get a watch', pricing: 'free' }),
  op({
    id: 'watchUpdate',
    method: 'PATCH',
    path: '/v1/mentions/watches/{watch_id}',
    tag: 'Monitoring',
    summary: 'Update a watch',
    body: WatchUpdateBody,
    pricing: 'free',
    description: 'Changes only the fields the body names. A change to `keywords`, `platforms`, `feeds` or `sites` collects at once; a new `intervalMinutes` moves the next collection to one new interval after the last was due. Stored mentions are kept.',
  }),
  op({ id: 'watchDelete', method: 'DELETE', path: '/v1/mentions/watches/{watch_id}', tag: 'Monitoring', summary: 'Delete a watch', pricing: 'free' }),
  op({
    id: 'watchTest',
    method: 'POST',
    path: '/v1/mentions/watches/{watch_id}/test',
    tag: 'Monitoring',
    summary: 'Test a saved watch',
    description: 'Runs the saved watch now, as POST /v1/mentions/test runs watch fields: nothing is stored, charged twice or sent.',
  }),
  op({
    id: 'watchTestUnsaved',
    method: 'POST',
    path: '/v1/mentions/test',
    tag: 'Monitoring',
    summary: 'Test watch fields before saving',
    body: WatchBody,
    description:
      'Runs a collection of these watch fields now, reaching back 7 days where a platform allows (X recent search: 7 days; the others: by date filter), and answers per platform: `status` (`ok`, `error`, `not_configured`), `source` (the service that answered: a fallback names itself), `warnings`, `error` (`code`, `message`, `retryAfterMs` for a rate limit), and `mentions` found, each with its `category`, `score` and `classifier`. Nothing is stored or sent; posts already stored for a saved watch are listed too. ' +
      'Costs 1 credit when at least one platform answered; nothing when none did.',
  }),
  op({
    id: 'mentionList',
    method: 'GET',
    path: '/v1/mentions',
    tag: 'Monitoring',
    summary: 'List mentions',
    query: MentionsQuery,
    pricing: 'free',
    description:
      "This key's mentions, newest found first: `{mentions, next}`; pass `next` as `cursor` for the following page (null on the last). A mention: `id`, `watchId`, `platform`, `externalId` (the platform's id of the post), `url`, `author`, `title`, `text`, `lang`, `matchedKeywords`, `category`, `score` (0–1) and `classifier` (`linear-…` offline, `model:<provider>/<name>` with the operator's model), `status`, `publishedAt`, `foundAt`, `updatedAt`, `collectionId`.",
  }),
  op({
    id: 'mentionUpdate',
    method: 'PATCH',
    path: '/v1/mentions/{mention_id}',
    tag: 'Monitoring',
    summary: "Set a mention's status",
    body: MentionStatusBody,
    pricing: 'free',
    description: 'Any status may move to any other; every change is kept and the answer is the mention with its `statusHistory` (`{from, to, at}`, oldest first).',
  }),
] as const satisfies readonly Operation[];
