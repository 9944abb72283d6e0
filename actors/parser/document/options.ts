/**
 * Scrape options with their defaults applied, as the parser reads them.
 *
 * `formats` may hold strings or format objects (`{type: 'json', …}`); the parser serves
 * markdown, html, rawHtml, links and media. The others (json, summary, screenshot, network,
 * changeTracking) are answered by other parts of the service: `otherFormats` names them so
 * the caller can serve them or answer a clear not-yet-served error.
 */
import { PARSER_FORMATS, type DocumentOptions, type ParserFormat } from './types.js';

export interface ResolvedOptions {
  readonly formats: ReadonlySet<ParserFormat>;
  readonly onlyMainContent: boolean;
  readonly includeTags: readonly string[];
  readonly excludeTags: readonly string[];
  readonly removeBase64Images: boolean;
  readonly pdf: boolean;
}

const PARSER_FORMAT_SET: ReadonlySet<string> = new Set(PARSER_FORMATS);

function formatName(item: unknown): string | null {
  if (typeof item === 'string') return item;
  if (item && typeof item === 'object' && typeof (item as { type?: unknown }).type === 'string') return (item as { type: string }).type;
  return null;
}

/** The requested format names this module does not produce, in request order, deduplicated. */
export function otherFormats(formats: DocumentOptions['formats']): string[] {
  const names = (formats ?? ['markdown']).map(formatName).filter((n): n is string => n !== null);
  return [...new Set(names.filter((n) => !PARSER_FORMAT_SET.has(n)))];
}

const selectors = (list: readonly string[] | undefined): string[] => (list ?? []).map((s) => s.trim()).filter((s) => s.length > 0);

export function resolveOptions(options: DocumentOptions = {}): ResolvedOptions {
  const names = (options.formats ?? ['markdown']).map(formatName);
  return {
    formats: new Set(names.filter((n): n is ParserFormat => n !== null && PARSER_FORMAT_SET.has(n))),
    onlyMainContent: options.onlyMainContent ?? true,
    includeTags: selectors(options.includeTags),
    excludeTags: selectors(options.excludeTags),
    removeBase64Images: options.removeBase64Images ?? true,
    pdf: options.parsers?.includes('pdf') ?? false,
  };
}
