/**
 * The rules of a webhook's caller-given `headers` (schemas/api/page-reading.ts
 * WEBHOOK_HEADER_RULES, docs/webhooks.md): the gateway refuses a webhook whose headers break
 * them (422, gateway/validation.ts), and the notifier sends only the headers they allow
 * (`deliverableHeaders`), so a record made before a rule existed cannot fail every delivery
 * nor name the receiver's host for it.
 */
import { WEBHOOK_HEADER_RULES } from '../../schemas/api/page-reading.js';

/** An HTTP token (RFC 9110 §5.6.2): what a header name is made of. */
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** What Node's HTTP client sends in a header value: tab, space, visible ASCII and U+0080…U+00FF. */
const VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;

export interface HeaderProblem {
  /** The header's name as given. */
  readonly name: string;
  readonly type: 'header_name_invalid' | 'header_value_invalid' | 'header_forbidden' | 'too_large';
  readonly msg: string;
}

/** Whether the HTTP stack owns the header (hop-by-hop, Host, Content-Length): a caller may not set it. */
export function isForbiddenHeader(name: string): boolean {
  const lower = name.toLowerCase();
  return (WEBHOOK_HEADER_RULES.forbidden as readonly string[]).includes(lower) || WEBHOOK_HEADER_RULES.forbiddenPrefixes.some((p) => lower.startsWith(p));
}

/** The problem of one header, or null when it may be sent. */
export function headerProblem(name: string, value: string): HeaderProblem | null {
  if (!TOKEN.test(name)) {
    return { name, type: 'header_name_invalid', msg: "a header name is an HTTP token: letters, digits and !#$%&'*+-.^_`|~ only" };
  }
  if (isForbiddenHeader(name)) {
    return { name, type: 'header_forbidden', msg: `the ${name} header is set by the service (hop-by-hop headers, Host and Content-Length cannot be given)` };
  }
  if (!VALUE.test(value)) {
    return { name, type: 'header_value_invalid', msg: 'a header value holds tabs, spaces and visible characters up to U+00FF only: no CR, LF, NUL or other control character' };
  }
  return null;
}

/** Bytes of names and values together, as sent (each value's characters are single bytes once valid). */
function headerBytes(headers: Readonly<Record<string, string>>): number {
  let bytes = 0;
  for (const [name, value] of Object.entries(headers)) bytes += Buffer.byteLength(name) + Buffer.byteLength(value, 'latin1');
  return bytes;
}

/** Every problem of a webhook's `headers` (the count is the schema's `maxProperties`). */
export function webhookHeaderProblems(headers: Readonly<Record<string, unknown>>): HeaderProblem[] {
  const problems: HeaderProblem[] = [];
  const strings: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (typeof value !== 'string') continue;
    strings[name] = value;
    const problem = headerProblem(name, value);
    if (problem) problems.push(problem);
  }
  const bytes = headerBytes(strings);
  if (bytes > WEBHOOK_HEADER_RULES.maxBytes) {
    problems.push({ name: '', type: 'too_large', msg: `the headers hold ${bytes} bytes of names and values; at most ${WEBHOOK_HEADER_RULES.maxBytes} are accepted` });
  }
  return problems;
}

/** The headers a delivery sends: those the rules allow, the others dropped. */
export function deliverableHeaders(headers: Readonly<Record<string, string>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) if (typeof value === 'string' && !headerProblem(name, value)) out[name] = value;
  return out;
}
