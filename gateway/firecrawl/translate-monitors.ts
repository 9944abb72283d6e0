/**
 * Firecrawl's monitors translated to and from ours: cron schedules as check intervals, create
 * bodies, monitors and checks (the rest of the edge's translation is translate.ts).
 */
import { FirecrawlRefusal, isObject, type Json } from './translate.js';

const CRON_HELP =
  'a monitor here checks at one fixed interval (5 minutes to 7 days) counted from its creation (the first check at once), so only a cron that repeats at one interval is taken: `*/N * * * *`, `M * * * *`, `M */H * * *`, `M H * * *`, `M H * * D`, `@hourly`, `@daily`, `@weekly`, in UTC. A schedule whose gaps differ (chosen weekdays such as `0 9 * * 1-5`, days of the month, lists or ranges of hours) cannot be kept by an interval and is refused';

const isField = (f: string) => /^\d{1,2}$/.test(f);

/** A Firecrawl cron schedule as our check interval in minutes; anything not a fixed interval is refused. */
export function intervalOfCron(cron: string): number {
  const named: Record<string, number> = { '@hourly': 60, '@daily': 1440, '@midnight': 1440, '@weekly': 10080 };
  const trimmed = cron.trim();
  if (named[trimmed]) return named[trimmed];
  const parts = trimmed.split(/\s+/);
  if (parts.length !== 5) throw new FirecrawlRefusal(`schedule.cron \`${cron}\`: ${CRON_HELP}`);
  const [minute, hour, day, month, weekday] = parts as [string, string, string, string, string];
  let minutes: number | null = null;
  if (day === '*' && month === '*') {
    const every = /^\*\/(\d{1,4})$/.exec(minute);
    if (every && hour === '*' && weekday === '*') minutes = Number(every[1]);
    else if (isField(minute) && hour === '*' && weekday === '*') minutes = 60;
    else if (isField(minute) && /^\*\/\d{1,2}$/.test(hour) && weekday === '*') minutes = Number(hour.slice(2)) * 60;
    else if (isField(minute) && isField(hour) && weekday === '*') minutes = 1440;
    else if (isField(minute) && isField(hour) && /^\d$/.test(weekday)) minutes = 10080;
  }
  if (minutes === null || minutes < 5 || minutes > 10080) throw new FirecrawlRefusal(`schedule.cron \`${cron}\`: ${CRON_HELP}`);
  return minutes;
}

/** Our check interval as the cron Firecrawl's clients read back. */
export function cronOfInterval(minutes: number): string {
  if (minutes === 10080) return '0 0 * * 0';
  if (minutes === 1440) return '0 0 * * *';
  if (minutes >= 60 && minutes % 60 === 0 && minutes < 1440) return minutes === 60 ? '0 * * * *' : `0 */${minutes / 60} * * *`;
  return `*/${minutes} * * * *`;
}

/** A Firecrawl schedule as our check interval in minutes (create and update alike). */
function intervalOfSchedule(given: unknown): number {
  const schedule = isObject(given) ? given : {};
  if (typeof schedule.cron !== 'string') {
    throw new FirecrawlRefusal(`give \`schedule.cron\`: ${typeof schedule.text === 'string' ? 'schedules written as text are not read; ' : ''}${CRON_HELP}`);
  }
  if (typeof schedule.timezone === 'string' && !/^(UTC|Etc\/UTC|GMT)$/i.test(schedule.timezone)) {
    throw new FirecrawlRefusal('schedule.timezone: checks run at a fixed interval from creation, so only `UTC` is taken');
  }
  return intervalOfCron(schedule.cron);
}

/** The page URLs of Firecrawl monitor targets: `scrape` targets only, without scrapeOptions. */
function urlsOfTargets(given: unknown): unknown[] {
  const targets = Array.isArray(given) ? given : [];
  if (!targets.length) throw new FirecrawlRefusal('give at least one target');
  const urls: unknown[] = [];
  for (const target of targets) {
    if (!isObject(target) || target.type !== 'scrape') {
      throw new FirecrawlRefusal(`monitor targets of type \`${isObject(target) ? String(target.type) : '?'}\` are not offered: give \`{type: "scrape", urls}\` targets (pages checked for changes)`);
    }
    if (isObject(target.scrapeOptions) && Object.keys(target.scrapeOptions).length) {
      throw new FirecrawlRefusal('monitor targets\' scrapeOptions are not offered: a monitor reads each page as markdown and compares it with its previous reading');
    }
    if (Array.isArray(target.urls)) urls.push(...target.urls);
  }
  return urls;
}

/** A Firecrawl webhook config as our webhook URL. */
function webhookOf(webhook: Json): unknown {
  if (isObject(webhook.headers) || isObject(webhook.metadata)) {
    throw new FirecrawlRefusal('monitor webhooks take a `url` only (no headers or metadata); verify deliveries with their signature');
  }
  return webhook.url;
}

const NOTIFICATIONS = 'email and Slack notifications are not offered: give a `webhook`';

/** A Firecrawl monitor create body as ours: scrape targets' URLs, the schedule as an interval, the webhook's URL. */
export function monitorBodyOf(given: Json): Json {
  const intervalMinutes = intervalOfSchedule(given.schedule);
  const body: Json = { name: given.name, urls: urlsOfTargets(given.targets), intervalMinutes };
  if (typeof given.goal === 'string') body.goal = given.goal;
  if (isObject(given.webhook)) body.webhook = webhookOf(given.webhook);
  if (isObject(given.notification)) throw new FirecrawlRefusal(NOTIFICATIONS);
  return body;
}

/** How long a monitor's checks are kept here (the `monitor_checks` TTL, docs/api/monitors.md). */
export const RETENTION_DAYS = 90;

const UPDATE_FIELDS = new Set(['name', 'status', 'schedule', 'targets', 'webhook', 'notification', 'retentionDays', 'goal', 'judgeEnabled']);

/**
 * A Firecrawl monitor update (PATCH /v2/monitor/:id, the SDK's updateMonitor) as our PATCH
 * /v1/monitor/{id} body: the fields it names only. `targets` replace the monitor's pages
 * (`url` cleared, `urls` the targets'), `schedule` becomes the interval by the create rules,
 * `webhook: null` removes it. What we cannot honour is refused: notifications, a judge, a
 * retention other than ours, fields Firecrawl does not have.
 */
export function monitorUpdateOf(given: Json): Json {
  // The SDKs add where a call came from (`origin`, `integration`); dropped as everywhere on this edge.
  const unknown = Object.keys(given).filter((key) => !UPDATE_FIELDS.has(key) && key !== 'origin' && key !== 'integration');
  if (unknown.length) throw new FirecrawlRefusal(`unknown monitor field${unknown.length > 1 ? 's' : ''} ${unknown.map((k) => `\`${k}\``).join(', ')}: an update takes ${[...UPDATE_FIELDS].join(', ')}`);
  const body: Json = {};
  if (given.name !== undefined) body.name = given.name;
  if (given.status !== undefined) body.status = given.status;
  if (given.schedule !== undefined) body.intervalMinutes = intervalOfSchedule(given.schedule);
  if (given.targets !== undefined) {
    body.url = null;
    body.urls = urlsOfTargets(given.targets);
  }
  if (given.webhook !== undefined) body.webhook = isObject(given.webhook) ? webhookOf(given.webhook) : given.webhook;
  if (given.goal !== undefined) body.goal = given.goal;
  if (given.notification !== undefined && given.notification !== null) throw new FirecrawlRefusal(NOTIFICATIONS);
  if (given.judgeEnabled === true) throw new FirecrawlRefusal('judgeEnabled: no model judges whether a change matters here; every change past the noise rules is reported (leave judgeEnabled false)');
  if (given.retentionDays !== undefined && given.retentionDays !== RETENTION_DAYS) {
    throw new FirecrawlRefusal(`retentionDays: checks are kept ${RETENTION_DAYS} days here, for every monitor; leave it out (or give ${RETENTION_DAYS})`);
  }
  return body;
}

/** Our monitor as Firecrawl's. */
export function monitorOf(m: Json): Json {
  const minutes = typeof m.intervalMinutes === 'number' ? m.intervalMinutes : 60;
  const urls = Array.isArray(m.urls) && m.urls.length ? m.urls : typeof m.url === 'string' ? [m.url] : [];
  return {
    id: m.id,
    name: m.name,
    status: m.status ?? 'active',
    schedule: { cron: cronOfInterval(minutes), timezone: 'UTC' },
    nextRunAt: m.nextCheckAt ?? null,
    lastRunAt: m.lastCheckAt ?? null,
    currentCheckId: m.currentCheckId ?? null,
    targets: [{ id: 'pages', type: 'scrape', urls }],
    webhook: typeof m.webhook === 'string' ? { url: m.webhook } : null,
    notification: null,
    lastCheckSummary: m.lastCheckSummary ?? null,
    goal: m.goal ?? null,
    retentionDays: RETENTION_DAYS,
    judgeEnabled: false,
    createdAt: m.createdAt,
    updatedAt: m.updatedAt ?? m.createdAt,
  };
}

/** Our check as Firecrawl's (with its pages when `pages` is set). */
export function monitorCheckOf(c: Json, pages: boolean): Json {
  const final = !['queued', 'running'].includes(String(c.status));
  const out: Json = {
    id: c.id,
    monitorId: c.monitorId,
    status: c.status,
    trigger: c.trigger,
    scheduledFor: c.scheduledAt ?? null,
    startedAt: c.startedAt ?? null,
    finishedAt: c.finishedAt ?? null,
    actualCredits: c.creditsUsed ?? 0,
    billingStatus: final ? 'confirmed' : 'reserved',
    summary: c.summary,
    targetResults: [{ targetId: 'pages', type: 'scrape' }],
    error: c.reason ?? null,
    createdAt: c.queuedAt ?? c.scheduledAt,
    updatedAt: c.finishedAt ?? c.startedAt ?? c.queuedAt,
  };
  if (pages) {
    out.pages = (Array.isArray(c.pages) ? (c.pages as Json[]) : []).map((p, i) => ({
      id: `${String(c.id)}-${i}`,
      targetId: 'pages',
      url: p.url,
      status: p.status,
      statusCode: p.statusCode ?? null,
      error: isObject(p.error) ? p.error.message : null,
      diff: typeof p.diff === 'string' && p.diff ? { text: p.diff } : null,
      createdAt: p.checkedAt,
    }));
    out.next = null;
  }
  return out;
}
