/**
 * The JSON of one `<script type="application/ld+json">` block, repaired as far as is cheap.
 *
 * The block is first unwrapped (`<!-- … -->`, `<![CDATA[ … ]]>`, `//<![CDATA[ … //]]>`, a BOM)
 * and handed to `JSON.parse`: the fast path, taken by nearly every page. Only when that
 * throws does a small lenient reader take over, one pass, linear in the text:
 *
 * - trailing and doubled commas skipped, a missing comma between members tolerated;
 * - raw newlines and control characters inside strings kept (text is collapsed later), an
 *   unknown escape (`\'`) read as its character, single-quoted strings and bare keys read;
 * - a quote inside a string that is not followed by `,` `}` `]` `:` `"` or the end is taken
 *   as part of the text (`"The "Best" Product"`); an unquoted value (`"author": Jane Doe,`)
 *   is read as text up to the next `,` `}` `]` or line end;
 * - `//` and `/* *\/` comments and stray `<!--`/`-->` between tokens skipped;
 * - several values one after the other (`{…}{…}`, `{…},{…}`) all read;
 * - a truncated block read up to where it stops (open strings, objects and arrays closed);
 * - anything else (a token it cannot read) ends the reading: what was read so far is kept,
 *   the rest of the block dropped. It never throws; nesting deeper than 256 ends it too.
 *
 * `__proto__` keys are dropped (a parsed object is an ordinary object).
 */

const WRAP_PREFIXES = ['/*<![CDATA[*/', '//<![CDATA[', '<![CDATA[', '<!--'];
const WRAP_SUFFIXES = ['/*]]>*/', '//]]>', ']]>', '//-->', '-->'];

/** The block without its wrappers and BOM. */
export function unwrapBlock(text: string): string {
  let s = text.trim();
  if (s.charCodeAt(0) === 0xfeff) s = s.slice(1).trim();
  for (let changed = true; changed; ) {
    changed = false;
    for (const prefix of WRAP_PREFIXES) {
      if (s.startsWith(prefix)) {
        s = s.slice(prefix.length).trim();
        changed = true;
      }
    }
    for (const suffix of WRAP_SUFFIXES) {
      if (s.endsWith(suffix)) {
        s = s.slice(0, -suffix.length).trim();
        changed = true;
      }
    }
  }
  return s;
}

/** The values of a JSON-LD block: one for well-formed JSON, what the lenient reader recovers otherwise (maybe none). */
export function parseJsonBlock(text: string): unknown[] {
  const s = unwrapBlock(text);
  if (!s) return [];
  try {
    return [JSON.parse(s) as unknown];
  } catch {
    return new LenientReader(s).values();
  }
}

const FAIL = Symbol('fail');
type Read = unknown | typeof FAIL;

const MAX_DEPTH = 256;
const NUMBER = /-?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?/y;
const BARE_KEY = /[A-Za-z_$@][\w$@:.-]*/y;
const ESCAPES: Readonly<Record<string, string>> = { b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };
const STRING_FOLLOWERS = new Set([',', '}', ']', ':', '"']);
const BARE_TEXT_ENDS = new Set([',', '}', ']', '\n', '\r']);

/** The lenient reader (see the file comment). `stopped` is set once the text cannot be read further. */
class LenientReader {
  private pos = 0;
  private stopped = false;

  constructor(private readonly s: string) {}

  values(): unknown[] {
    const out: unknown[] = [];
    const s = this.s;
    while (!this.stopped) {
      this.skipSpace();
      if (this.pos >= s.length) break;
      const c = s[this.pos];
      if (c === '{' || c === '[') {
        const value = this.value(0);
        if (value !== FAIL) out.push(value);
      } else if (c === ',' || c === ';') this.pos += 1;
      else break;
    }
    return out;
  }

  /** Skips whitespace, comments and stray HTML comment markers. */
  private skipSpace(): void {
    const s = this.s;
    while (this.pos < s.length) {
      const c = s.charCodeAt(this.pos);
      if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09 || c === 0x0c || c === 0xa0 || c === 0xfeff) this.pos += 1;
      else if (s.startsWith('//', this.pos)) {
        const end = s.indexOf('\n', this.pos);
        this.pos = end < 0 ? s.length : end + 1;
      } else if (s.startsWith('/*', this.pos)) {
        const end = s.indexOf('*/', this.pos + 2);
        this.pos = end < 0 ? s.length : end + 2;
      } else if (s.startsWith('<!--', this.pos)) this.pos += 4;
      else if (s.startsWith('-->', this.pos)) this.pos += 3;
      else return;
    }
  }

  private value(depth: number): Read {
    this.skipSpace();
    const s = this.s;
    if (this.pos >= s.length) return this.stop();
    const c = s[this.pos] as string;
    if (c === '{') return depth >= MAX_DEPTH ? this.stop() : this.object(depth + 1);
    if (c === '[') return depth >= MAX_DEPTH ? this.stop() : this.array(depth + 1);
    if (c === '"' || c === "'") return this.string(c);
    if (c === '-' || c === '.' || (c >= '0' && c <= '9')) return this.number();
    for (const [word, value] of LITERALS) {
      if (s.startsWith(word, this.pos)) {
        this.pos += word.length;
        return value;
      }
    }
    return c === ',' || c === '}' || c === ']' || c === ':' ? this.stop() : this.bareText();
  }

  /** An unquoted value (`"author": Jane Doe,`): the text up to the next `,` `}` `]` or line end. */
  private bareText(): string {
    const s = this.s;
    let end = this.pos + 1;
    while (end < s.length && !BARE_TEXT_ENDS.has(s[end] as string)) end += 1;
    const text = s.slice(this.pos, end).trim();
    this.pos = end;
    return text;
  }

  private stop(): typeof FAIL {
    this.stopped = true;
    return FAIL;
  }

  /**
   * Where a container's reading stands before its next member: `end` (the container closed,
   * or the text ran out or stopped), `next` (a separator was passed) or `member` (one starts
   * at `pos`).
   */
  private member(close: '}' | ']'): 'end' | 'next' | 'member' {
    if (this.stopped) return 'end';
    this.skipSpace();
    if (this.pos >= this.s.length) {
      this.stopped = true;
      return 'end';
    }
    const c = this.s[this.pos];
    if (c === close || c === ',') {
      this.pos += 1;
      return c === ',' ? 'next' : 'end';
    }
    return 'member';
  }

  private object(depth: number): Record<string, unknown> {
    const s = this.s;
    const out: Record<string, unknown> = {};
    this.pos += 1;
    for (let step = this.member('}'); step !== 'end'; step = this.member('}')) {
      if (step === 'next') continue;
      const c = s[this.pos] as string;
      const key = c === '"' || c === "'" ? this.string(c) : this.bareKey();
      if (key === FAIL) break;
      this.skipSpace();
      if (s[this.pos] !== ':') {
        this.stopped = true;
        break;
      }
      this.pos += 1;
      const value = this.value(depth);
      if (value === FAIL) break;
      if (key !== '__proto__') out[key] = value;
    }
    return out;
  }

  private array(depth: number): unknown[] {
    const s = this.s;
    const out: unknown[] = [];
    this.pos += 1;
    for (let step = this.member(']'); step !== 'end'; step = this.member(']')) {
      if (step === 'next') continue;
      const value = this.value(depth);
      if (value === FAIL) break;
      out.push(value);
    }
    return out;
  }

  /** Whether a quote at `at - 1` closes its string: followed (after spaces) by a structural character or the end. */
  private closes(at: number): boolean {
    const s = this.s;
    let i = at;
    while (i < s.length && /\s/.test(s[i] as string)) i += 1;
    return i >= s.length || STRING_FOLLOWERS.has(s[i] as string);
  }

  private string(quote: string): string {
    const s = this.s;
    let out = '';
    let start = (this.pos += 1);
    while (this.pos < s.length) {
      const c = s[this.pos];
      if (c === quote && this.closes(this.pos + 1)) {
        out += s.slice(start, this.pos);
        this.pos += 1;
        return out;
      }
      if (c === '\\') {
        out += s.slice(start, this.pos) + this.escape();
        start = this.pos;
        continue;
      }
      this.pos += 1;
    }
    this.stopped = true;
    return out + s.slice(start);
  }

  /** Reads the escape at `pos` (the backslash), leaving `pos` after it. */
  private escape(): string {
    const s = this.s;
    const c = s[this.pos + 1];
    if (c === undefined) {
      this.pos += 1;
      return '';
    }
    if (c === 'u' && /^[0-9a-fA-F]{4}$/.test(s.slice(this.pos + 2, this.pos + 6))) {
      this.pos += 6;
      return String.fromCharCode(Number.parseInt(s.slice(this.pos - 4, this.pos), 16));
    }
    this.pos += 2;
    return ESCAPES[c] ?? c;
  }

  private number(): Read {
    NUMBER.lastIndex = this.pos;
    const match = NUMBER.exec(this.s);
    if (!match) return this.stop();
    this.pos += match[0].length;
    const value = Number(match[0]);
    return Number.isFinite(value) ? value : match[0];
  }

  private bareKey(): string | typeof FAIL {
    BARE_KEY.lastIndex = this.pos;
    const match = BARE_KEY.exec(this.s);
    if (!match) return this.stop();
    this.pos += match[0].length;
    return match[0];
  }
}

const LITERALS: ReadonlyArray<readonly [string, unknown]> = [
  ['true', true],
  ['false', false],
  ['null', null],
  ['undefined', null],
  ['NaN', null],
];
