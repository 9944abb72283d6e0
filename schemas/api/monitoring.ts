/**
 * Request schemas of monitoring: monitors and their checks, mention watches and mentions.
 * Watch bodies and the mention status update are "not shown" in the spec; the shapes here
 * are documented in each description.
 */
import { Type, type TSchema } from '@sinclair/typebox';
import { Closed, Cursor, HttpUrl, Nullable, Pagination, StringEnum, withError } from './common.js';

export const MonitorBody = withError(
  Closed(
    {
      name: Type.String({ minLength: 1, maxLength: 120 }),
      url: Type.Optional(Nullable(HttpUrl('A page to check.'))),
      urls: Type.Optional(Nullable(Type.Array(HttpUrl('A page to check.'), { maxItems: 50 }))),
      intervalMinutes: Type.Optional(Type.Integer({ minimum: 5, maximum: 10080, default: 60 })),
      goal: Type.Optional(Nullable(Type.String({ maxLength: 1000 }), { description: 'Stored and returned; does not affect which changes are reported.' })),
      webhook: Type.Optional(Nullable(HttpUrl('POSTed to when a check finds a page changed, new or failing.'))),
    },
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
    Type.Array(StringEnum(MENTION_PLATFORMS), { uniqueItems: true, minItems: 1, description: 'Where to look (default: every platform).' }),
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
