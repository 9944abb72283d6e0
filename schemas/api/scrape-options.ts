/**
 * Scrape options: shared by scrape, crawl, batch scrape, extract and search. The object is
 * closed. Fields, defaults and bounds follow the spec's "Scrape options" table; where the
 * spec says "not shown" (action fields of wait/write/scroll/screenshot, the screenshot
 * format object, the default formats) the shapes are Firecrawl v1's, as documented below.
 */
import { Type, type Static } from '@sinclair/typebox';
import { Closed, Nullable, StringEnum, StringMap, TaggedUnion, COUNTRY_CODE, withError } from './common.js';

export const FORMAT_NAMES = [
  'markdown',
  'html',
  'rawHtml',
  'links',
  'media',
  'summary',
  'screenshot',
  'json',
  'network',
] as const;

const Viewport = Closed(
  {
    width: Type.Integer({ minimum: 1, maximum: 7680, description: 'Viewport width in CSS pixels.' }),
    height: Type.Integer({ minimum: 1, maximum: 4320, description: 'Viewport height in CSS pixels.' }),
  },
  { description: 'Browser viewport size for the screenshot.' },
);

const screenshotFields = {
  fullPage: Type.Optional(Type.Boolean({ default: false, description: 'Capture the whole scrollable page, not only the viewport.' })),
  quality: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, description: 'JPEG quality 1 to 100; when omitted the image is PNG.' })),
  viewport: Type.Optional(Viewport),
};

const JsonFormat = withError(
  Closed(
    {
      type: Type.Literal('json'),
      schema: Type.Optional(Nullable(Type.Object({}, { additionalProperties: true }), { description: 'JSON Schema the result must follow.' })),
      template: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 100 }), { description: 'Name of an extraction template (GET /v1/templates).' })),
      prompt: Type.Optional(Nullable(Type.String({ maxLength: 10000 }), { description: 'Plain-language guidance on what to pick out.' })),
    },
    {
      description: 'Structured JSON from the page. Give `schema` or `template`, not both.',
      not: { required: ['schema', 'template'], properties: { schema: { type: 'object' }, template: { type: 'string' } } },
    },
  ),
  { type: 'mutually_exclusive', msg: 'give schema or template, not both' },
);

const ChangeTrackingFormat = Closed(
  {
    type: Type.Literal('changeTracking'),
    modes: Type.Optional(
      Type.Array(StringEnum(['git-diff', 'json']), {
        uniqueItems: true,
        maxItems: 2,
        description: 'Diff forms to return besides the change status: `git-diff` (text diff) and `json` (field-level, comparing the `json` format of the two scrapes: request it too).',
      }),
    ),
    tag: Type.Optional(
      Nullable(Type.String({ minLength: 1, maxLength: 100 }), {
        description: 'Keeps a separate history for the same URL under this name (e.g. one per schema or per purpose); null is its own history.',
      }),
    ),
  },
  {
    description:
      "Compare with this key's previous scrape of the same URL (and `tag`): `data.changeTracking` holds `previousScrapeAt`, `changeStatus` (`new`, `same`, `changed`, `removed`), `visibility`, and per mode `diff.text` (unified diff), `diff.json` (parsed diff) and `json` (`{field: {previous, current}}`). Unlike Firecrawl's, the comparison respects order: a moved paragraph is a change.",
  },
);

const ScreenshotFormat = Closed(
  { type: Type.Literal('screenshot'), ...screenshotFields },
  {
    description:
      'Screenshot with options (Firecrawl v1 shape). The string form `screenshot` is this object with its defaults. Returned as `data.screenshot`, a base64 data URL (`data:image/png;base64,…`, or `data:image/jpeg;base64,…` when `quality` is given) that is complete on its own: nothing to fetch later, nothing that expires. Renders the page in a browser.',
  },
);

export const FormatItem = Type.Union(
  [
    StringEnum(FORMAT_NAMES),
    TaggedUnion([JsonFormat, ChangeTrackingFormat, ScreenshotFormat], {
      description: 'A format with options, told apart by `type`.',
    }),
  ],
  { description: 'A format name, or a format object.' },
);

const selector = (description: string) => Type.String({ minLength: 1, maxLength: 2000, description });

export const CAPTCHA_FRAME_SELECTOR = 'iframe[src*="challenge"], iframe[title*="challenge" i]';
export const CAPTCHA_CHECKBOX_SELECTOR = '[role="checkbox"], input[type="checkbox"], #checkbox';

export const Action = TaggedUnion(
  [
    Closed({ type: Type.Literal('click'), selector: selector('CSS selector of the element to click.') }),
    Closed({ type: Type.Literal('press'), key: Type.String({ minLength: 1, maxLength: 50, description: 'Key name as Playwright spells it, e.g. `Enter`.' }) }),
    Closed({ type: Type.Literal('write'), text: Type.String({ maxLength: 10000, description: 'Text typed into the focused element.' }) }),
    withError(
      Closed(
        {
          type: Type.Literal('wait'),
          milliseconds: Type.Optional(Type.Integer({ minimum: 1, maximum: 60000, description: 'Time to wait.' })),
          selector: Type.Optional(selector('Wait until this element is present.')),
        },
        {
          description: 'Wait for a time or for an element: give exactly one of `milliseconds` and `selector`.',
          oneOf: [{ required: ['milliseconds'] }, { required: ['selector'] }],
        },
      ),
      { type: 'one_of_required', msg: 'give exactly one of milliseconds or selector' },
    ),
    Closed({
      type: Type.Literal('scroll'),
      direction: Type.Optional(StringEnum(['up', 'down'], { default: 'down' })),
      selector: Type.Optional(selector('Scroll this element instead of the page.')),
    }),
    Closed(
      { type: Type.Literal('screenshot'), ...screenshotFields },
      { description: 'Take a screenshot now; returned in `data.actions.screenshots` as a base64 data URL (PNG, or JPEG with `quality`).' },
    ),
    Closed({ type: Type.Literal('executeJavascript'), script: Type.String({ minLength: 1, maxLength: 100000, description: 'Script run in the page; its return value is returned.' }) }),
    Closed({ type: Type.Literal('scrape') }, { description: 'Capture the page HTML at this point.' }),
    Closed(
      {
        type: Type.Literal('captchaCheckbox'),
        successSelector: selector('Element that appears once the challenge is passed; waited on after one click.'),
        frameSelector: Type.Optional(selector('Frame holding the checkbox.')),
        selector: Type.Optional(selector('The checkbox anchor inside the frame.')),
        timeoutMs: Type.Optional(Type.Integer({ minimum: 500, maximum: 15000, default: 8000 })),
        captureEvidence: Type.Optional(Type.Boolean({ default: false, description: 'Screenshot before and after the click.' })),
      },
      {
        description: `Click a challenge checkbox once. frameSelector defaults to \`${CAPTCHA_FRAME_SELECTOR}\`; selector to \`${CAPTCHA_CHECKBOX_SELECTOR}\`.`,
      },
    ),
  ],
  { description: 'One browser action, told apart by `type`. Actions are closed objects.' },
);

export const Location = Nullable(
  Closed({
    country: COUNTRY_CODE,
    languages: Type.Optional(Nullable(Type.Array(Type.String({ minLength: 2, maxLength: 35 }), { maxItems: 20 }))),
  }),
  { description: 'Where to read the page from: sets Accept-Language, locale and (when configured) a country-routed proxy.' },
);

export const PROXY_ROUTES = ['none', 'datacenter', 'residential', 'mobile', 'auto'] as const;

/** The page `timeout` option in ms: its bounds and default, defined once for the gateway and the actors. */
export const PAGE_TIMEOUT_MS = { min: 1000, max: 300_000, default: 90_000 } as const;

export const scrapeOptionFields = {
  formats: Type.Optional(
    Type.Array(FormatItem, { maxItems: 20, default: ['markdown'], description: 'What to return. Default `["markdown"]`.' }),
  ),
  onlyMainContent: Type.Optional(Type.Boolean({ default: true, description: 'Drop navigation, headers, footers and cookie banners.' })),
  includeTags: Type.Optional(Type.Array(selector('CSS selector'), { maxItems: 100, description: 'Kept even outside main content.' })),
  excludeTags: Type.Optional(Type.Array(selector('CSS selector'), { maxItems: 100, description: 'Dropped before reading.' })),
  maxAge: Type.Optional(Type.Integer({ minimum: 0, default: 0, description: 'Serve a cached copy taken within this many ms; 0 forces a fresh fetch.' })),
  storeInCache: Type.Optional(Type.Boolean({ default: true })),
  waitFor: Type.Optional(Type.Integer({ minimum: 0, maximum: 120000, default: 0, description: 'Wait this many ms after load; renders in a browser.' })),
  timeout: Type.Optional(Type.Integer({ minimum: PAGE_TIMEOUT_MS.min, maximum: PAGE_TIMEOUT_MS.max, default: PAGE_TIMEOUT_MS.default, description: 'Time allowed for the whole page, in ms.' })),
  actions: Type.Optional(Type.Array(Action, { maxItems: 50, description: 'Browser actions run in order before the page is read (at most 50).' })),
  captchaHandling: Type.Optional(StringEnum(['auto', 'off'], { default: 'auto' })),
  captchaEvidence: Type.Optional(Type.Boolean({ default: false })),
  headers: Type.Optional(
    StringMap({
      maxProperties: 50,
      description: 'Extra request headers. User-Agent and other browser-identity headers are set by the service and are not overridden.',
    }),
  ),
  mobile: Type.Optional(Type.Boolean({ default: false })),
  location: Type.Optional(Location),
  proxy: Type.Optional(StringEnum(PROXY_ROUTES, { default: 'auto' })),
  blockAssets: Type.Optional(Type.Boolean({ default: true })),
  removeBase64Images: Type.Optional(Type.Boolean({ default: true })),
  parsers: Type.Optional(Type.Array(StringEnum(['pdf']), { uniqueItems: true, maxItems: 1 })),
};

export const ScrapeOptions = Closed(scrapeOptionFields, { description: 'Scrape options (closed object).' });
export type ScrapeOptions = Static<typeof ScrapeOptions>;
