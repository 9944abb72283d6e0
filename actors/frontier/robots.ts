/**
 * robots.txt (RFC 9309, with Google's reading of it), parsed once per host and asked per URL.
 *
 * - Lines are `field: value`; `#` starts a comment; field names are case-insensitive; lines
 *   that are not `field: value` are skipped (a robots.txt is never malformed, only partly
 *   understood). Only the first 500 KiB are read.
 * - A group is one or more `user-agent` lines followed by rules (`allow`, `disallow`,
 *   `crawl-delay`); rules before any `user-agent` belong to no group and are ignored.
 *   Groups naming the same agent are merged.
 * - `sitemap` lines stand outside groups: every one is collected, resolved against the
 *   robots.txt URL.
 * - The rules that apply to us: the groups whose agent token is one of ours (matched
 *   case-insensitively), else the `*` groups, else none (everything allowed).
 * - A path is matched against each rule's pattern from its start (`*` any characters, a
 *   final `$` the end of the path); the longest matching pattern decides, `allow` winning a
 *   tie; no match allows. An empty `disallow` allows everything. The path compared is the
 *   URL's path and query, percent-encoded; a pattern's non-ASCII characters are
 *   percent-encoded (UTF-8) before comparing. `/robots.txt` itself is always allowed.
 * - What the fetch of robots.txt answered decides before the text does (`robotsFromStatus`):
 *   2xx is parsed; 4xx means no rules (allow all); 5xx or an unreachable host means
 *   "complete disallow", as RFC 9309 section 2.3.1.3 asks.
 */

/** Read at most this many bytes of a robots.txt (RFC 9309 asks for at least 500 KiB). */
export const ROBOTS_MAX_BYTES = 500 * 1024;

/** The product token our rules are looked up by, besides `*`. */
export const ROBOTS_AGENT = 'WebDataService';

export interface RobotsRule {
  readonly allow: boolean;
  readonly pattern: string;
}

export interface RobotsGroup {
  /** Agent tokens, lower case (`*` included as is). */
  readonly agents: readonly string[];
  readonly rules: readonly RobotsRule[];
  /** `crawl-delay` in seconds, when the group gave one. */
  readonly crawlDelaySeconds: number | null;
}

export interface RobotsTxt {
  readonly groups: readonly RobotsGroup[];
  /** Absolute sitemap URLs from `sitemap:` lines, in order, without duplicates. */
  readonly sitemaps: readonly string[];
}

/** The rules of one robots.txt for one agent. */
export interface RobotsPolicy {
  /** Whether the URL (absolute) may be fetched. */
  allows(url: string | URL): boolean;
  /** `crawl-delay` in ms for this agent, when given. */
  readonly crawlDelayMs: number | null;
  readonly sitemaps: readonly string[];
}

interface MutableGroup {
  agents: string[];
  rules: RobotsRule[];
  crawlDelaySeconds: number | null;
}

/**
 * A line without its `#` comment, as `/#.*$/` would remove it, by `indexOf`: that regex is
 * quadratic over a long run of `#` (each one scans to the end). `.` stops at U+2028/U+2029,
 * so the comment is the first `#` after the last of those.
 */
function withoutComment(line: string): string {
  const hash = line.indexOf('#', Math.max(line.lastIndexOf('\u2028'), line.lastIndexOf('\u2029')) + 1);
  return hash < 0 ? line : line.slice(0, hash);
}

/** Parses the text of a robots.txt fetched from `robotsUrl` (see the module comment). */
export function parseRobots(text: string, robotsUrl: string): RobotsTxt {
  const groups: MutableGroup[] = [];
  const sitemaps: string[] = [];
  let current: MutableGroup | null = null;
  let lastWasAgent = false;
  const body = text.length > ROBOTS_MAX_BYTES ? text.slice(0, ROBOTS_MAX_BYTES) : text;
  for (const rawLine of body.replace(/^\uFEFF/, '').split(/\r\n|\r|\n/)) {
    const line = withoutComment(rawLine).trim();
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    const field = line.slice(0, colon).trim().toLowerCase().replace(/[\s_]+/g, '-');
    const value = line.slice(colon + 1).trim();
    switch (field) {
      case 'user-agent': {
        if (!current || !lastWasAgent) {
          current = { agents: [], rules: [], crawlDelaySeconds: null };
          groups.push(current);
        }
        const token = value.split(/[/\s]/)[0]?.toLowerCase();
        if (token) current.agents.push(token);
        lastWasAgent = true;
        continue;
      }
      case 'allow':
      case 'disallow':
        if (current) current.rules.push({ allow: field === 'allow', pattern: value });
        break;
      case 'crawl-delay': {
        const seconds = Number(value);
        if (current && Number.isFinite(seconds) && seconds >= 0) current.crawlDelaySeconds = seconds;
        break;
      }
      case 'sitemap':
      case 'site-map': {
        if (!value) break;
        try {
          const href = new URL(value, robotsUrl).href;
          if (/^https?:/i.test(href) && !sitemaps.includes(href)) sitemaps.push(href);
        } catch {
          // not a URL: skipped
        }
        break;
      }
      default:
        break;
    }
    lastWasAgent = false;
  }
  return { groups, sitemaps };
}

/** Percent-encodes a pattern's non-ASCII characters (UTF-8) and upper-cases escapes. */
function encodePattern(pattern: string): string {
  let out = '';
  for (const char of pattern) {
    out += char.charCodeAt(0) > 0x7e || char === ' ' ? encodeURIComponent(char) : char;
  }
  return out.replace(/%[0-9a-f]{2}/gi, (escape) => escape.toUpperCase());
}

interface CompiledRule {
  readonly allow: boolean;
  readonly length: number;
  /** The pattern cut at each `*`: the first part must start the path, the others follow in order. */
  readonly parts: readonly string[];
  /** A final `$`: the last part must end the path. */
  readonly anchored: boolean;
}

function compile(rule: RobotsRule): CompiledRule | null {
  if (!rule.pattern) return null;
  const pattern = encodePattern(rule.pattern);
  const anchored = pattern.endsWith('$');
  const parts = (anchored ? pattern.slice(0, -1) : pattern).split('*');
  return { allow: rule.allow, length: pattern.length, parts, anchored };
}

/**
 * Whether `rule` matches `target` from its start. A site writes both the rules and the URLs
 * it links to, so no regular expression is built from them (a backtracking engine takes
 * exponential time on `/*a*a*a*a*a*b`): with `*` the only wildcard, taking each part at its
 * first place after the previous one is right (an earlier place never leaves less room for
 * the parts after it), and the one place an anchored last part can take is the end. Each part
 * is searched once, from where the previous one ended: linear in the path and the pattern.
 */
function matches(rule: CompiledRule, target: string): boolean {
  const { parts, anchored } = rule;
  const first = parts[0] ?? '';
  const last = parts.length - 1;
  if (last === 0) return anchored ? target === first : target.startsWith(first);
  if (!target.startsWith(first)) return false;
  let at = first.length;
  for (let i = 1; i < last; i++) {
    const part = parts[i] ?? '';
    if (!part) continue;
    const found = target.indexOf(part, at);
    if (found < 0) return false;
    at = found + part.length;
  }
  const end = parts[last] ?? '';
  if (anchored) return target.length - end.length >= at && target.endsWith(end);
  return target.indexOf(end, at) >= 0;
}

/** The path and query a rule is matched against. */
function matchTarget(url: URL): string {
  return `${url.pathname || '/'}${url.search}`.replace(/%[0-9a-f]{2}/gi, (escape) => escape.toUpperCase());
}

function policyOf(rules: readonly RobotsRule[], crawlDelaySeconds: number | null, sitemaps: readonly string[]): RobotsPolicy {
  const compiled = rules.map(compile).filter((r): r is CompiledRule => r !== null);
  return {
    sitemaps,
    crawlDelayMs: crawlDelaySeconds === null ? null : Math.round(crawlDelaySeconds * 1000),
    allows(input) {
      let url: URL;
      try {
        url = typeof input === 'string' ? new URL(input) : input;
      } catch {
        return false;
      }
      if (url.pathname === '/robots.txt') return true;
      const target = matchTarget(url);
      let best: CompiledRule | null = null;
      for (const rule of compiled) {
        if (!matches(rule, target)) continue;
        if (!best || rule.length > best.length || (rule.length === best.length && rule.allow && !best.allow)) best = rule;
      }
      return best ? best.allow : true;
    },
  };
}

/** The policy of `robots` for the agent tokens `agents` (default: ours), falling back to `*`. */
export function robotsPolicy(robots: RobotsTxt, agents: readonly string[] = [ROBOTS_AGENT]): RobotsPolicy {
  const wanted = agents.map((a) => a.toLowerCase());
  let groups = robots.groups.filter((g) => g.agents.some((a) => wanted.includes(a)));
  if (!groups.length) groups = robots.groups.filter((g) => g.agents.includes('*'));
  const rules = groups.flatMap((g) => g.rules);
  const delays = groups.map((g) => g.crawlDelaySeconds).filter((d): d is number => d !== null);
  return policyOf(rules, delays.length ? Math.max(...delays) : null, robots.sitemaps);
}

/** Everything allowed: no robots.txt (a 4xx answer). */
export const ALLOW_ALL: RobotsPolicy = policyOf([], null, []);

/** Nothing allowed: robots.txt unreachable (5xx, network failure). */
export const DISALLOW_ALL: RobotsPolicy = policyOf([{ allow: false, pattern: '/' }], null, []);

/** The policy a robots.txt fetch gives: parsed on 2xx, allow-all on 4xx, disallow-all otherwise. */
export function robotsFromStatus(statusCode: number, text: string, robotsUrl: string, agents?: readonly string[]): RobotsPolicy {
  if (statusCode >= 200 && statusCode < 300) return robotsPolicy(parseRobots(text, robotsUrl), agents);
  if (statusCode >= 400 && statusCode < 500) return ALLOW_ALL;
  return DISALLOW_ALL;
}
