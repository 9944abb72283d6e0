/**
 * What one hop of pipeline/runtime/net/http.ts does with a response, whichever client carried it
 * (got-scraping's stream, or node:http itself on the lean path, lean-hop.ts): the rules are
 * written here once.
 *
 * - A proxy's 407 is `proxy_failed`.
 * - A redirect status with a Location settles the hop at once, without its body.
 * - A declared Content-Length above `maxBytes` (of a body not content-encoded) is
 *   `content_too_large` before anything is read; the body is counted after decompression as
 *   it streams and refused the moment it passes `maxBytes`.
 * - The content policy refuses a declared type the service does not read before the body is
 *   read; an undeclared one is sniffed from the body.
 * - A Content-Length that no longer matches the (decoded) body is dropped from the headers.
 */
import { AppError } from '../errors.js';
import { isReadable, isUndeclared, sniffMediaType, type ContentPolicy } from './content.js';

export interface Hop {
  readonly statusCode: number;
  readonly headers: Record<string, string>;
  readonly body: Buffer;
  readonly location: string | null;
  /** The response's Set-Cookie headers, one per cookie. */
  readonly setCookies: readonly string[];
  readonly fetchedAtMs: number;
}

export const REDIRECTS: ReadonlySet<number> = new Set([301, 302, 303, 307, 308]);

export interface IntakeOptions {
  readonly url: URL;
  readonly proxyUrl: string | null;
  readonly maxBytes: number;
  readonly policy: ContentPolicy | null;
  /** Stops the transfer (the hop settled early, or failed). */
  readonly stop: () => void;
  readonly resolve: (hop: Hop) => void;
  readonly reject: (error: unknown) => void;
}

/**
 * Whether a Content-Encoding lists more than one coding besides `identity` (`gzip, gzip`): both
 * fetch paths decode one coding, so such a body came through still compressed and was read as
 * the page (this session's fuzz: a scrape of `gzip, gzip` answered the compressed bytes as
 * markdown, charged). No browser or crawler is known to need more.
 */
function stackedCodings(header: string | undefined): boolean {
  if (!header || !header.includes(',')) return false;
  let codings = 0;
  for (const part of header.split(',')) {
    const coding = part.trim().toLowerCase();
    if (coding && coding !== 'identity') codings += 1;
  }
  return codings > 1;
}

/** One response's intake: `head` when the headers arrive, then `data`…, then `end` (or `fail`). */
export class Intake {
  private settled = false;
  private readonly chunks: Buffer[] = [];
  private total = 0;
  private response: { statusCode: number; headers: Record<string, string>; setCookies: readonly string[]; at: number } | null = null;

  constructor(private readonly options: IntakeOptions) {}

  get done(): boolean {
    return this.settled;
  }

  fail(error: unknown): void {
    if (this.settled) return;
    this.settled = true;
    this.options.stop();
    this.options.reject(error);
  }

  /**
   * The status and headers (lower-case names; without the Content-Encoding and Content-Length
   * of a body that is decoded on the way). False when the hop is settled by them (a redirect,
   * a refusal): read no body then.
   */
  head(statusCode: number, headers: Record<string, string>, setCookies: readonly string[]): boolean {
    if (this.settled) return false;
    const { url, proxyUrl, maxBytes, policy } = this.options;
    const at = Date.now();
    this.response = { statusCode, headers, setCookies, at };
    if (proxyUrl && statusCode === 407) {
      this.fail(new AppError('proxy_failed', 'the proxy asked for authentication (407)'));
      return false;
    }
    const location = headers['location'];
    if (REDIRECTS.has(statusCode) && location) {
      this.settled = true;
      this.options.stop();
      this.options.resolve({ statusCode, headers, body: Buffer.alloc(0), location, setCookies, fetchedAtMs: at });
      return false;
    }
    if (stackedCodings(headers['content-encoding'])) {
      this.fail(new AppError('unsupported_content', `${url.origin}: the page is encoded more than once (Content-Encoding: ${headers['content-encoding']}), which the service does not decode`));
      return false;
    }
    const declared = Number(headers['content-length']);
    if (!headers['content-encoding'] && Number.isFinite(declared) && declared > maxBytes) {
      this.fail(new AppError('content_too_large', `${url.origin}: the page declares ${declared} bytes, more than the limit of ${maxBytes}`));
      return false;
    }
    if (policy && !isUndeclared(headers['content-type']) && !isReadable(headers['content-type'], policy)) {
      this.fail(new AppError('unsupported_content', `${url.origin}: content type ${headers['content-type']} is not one the service reads`));
      return false;
    }
    return true;
  }

  data(chunk: Buffer): void {
    if (this.settled) return;
    this.total += chunk.length;
    if (this.total > this.options.maxBytes) {
      this.fail(new AppError('content_too_large', `${this.options.url.origin}: the page is larger than the limit of ${this.options.maxBytes} bytes`));
      return;
    }
    this.chunks.push(chunk);
  }

  end(): void {
    if (this.settled) return;
    this.settled = true;
    const res = this.response;
    if (!res) return this.options.reject(new Error('the response ended before its headers'));
    const { url, policy } = this.options;
    const body = this.chunks.length === 1 ? (this.chunks[0] as Buffer) : Buffer.concat(this.chunks, this.total);
    const headers = res.headers;
    if (headers['content-length'] !== undefined && Number(headers['content-length']) !== body.length) delete headers['content-length'];
    if (policy && isUndeclared(headers['content-type'])) {
      const sniffed = sniffMediaType(body);
      if (sniffed) headers['content-type'] = sniffed;
      if (!sniffed || !isReadable(sniffed, policy)) {
        return this.options.reject(new AppError('unsupported_content', `${url.origin}: the body is ${sniffed ?? 'binary'} with no readable content type`));
      }
    }
    this.options.resolve({ statusCode: res.statusCode, headers, body, location: null, setCookies: res.setCookies, fetchedAtMs: res.at });
  }
}
