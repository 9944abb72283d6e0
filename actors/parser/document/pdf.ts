/**
 * PDF → text per page (unpdf, i.e. pdf.js), written as markdown paragraphs; `html` is one
 * `<section data-page="n">` of `<p>`s per page, and `rawHtml` is that same HTML (a PDF has
 * no HTML of its own; Firecrawl does the same). Metadata gains `numPages`, and `title` /
 * `author` from the PDF's info dictionary when present. Text-only: scanned pages without a
 * text layer come out empty (no OCR here).
 *
 * A file pdf.js cannot open (corrupt, truncated, encrypted) is `unsupported_content` with
 * the reason; never a crash. unpdf is imported on first use: HTML pages never pay for it.
 */
import { AppError } from '../../../pipeline/runtime/errors.js';
import { linkUrl } from '../formats/urls.js';
import { orderFields, responseMetadata, type ResponseFacts } from './html.js';
import type { ResolvedOptions } from './options.js';
import type { ScrapeDocument } from './types.js';

export interface PdfText {
  readonly pages: string[];
  readonly title?: string;
  readonly author?: string;
}

const escapeHtml = (text: string): string => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** Reads the text of a PDF; throws `unsupported_content` when pdf.js cannot. */
export async function readPdf(bytes: Buffer): Promise<PdfText> {
  const { getDocumentProxy, extractText, getMeta } = await import('unpdf');
  let pdf: Awaited<ReturnType<typeof getDocumentProxy>> | undefined;
  try {
    // pdf.js may transfer (detach) the buffer it is given: hand it a copy.
    pdf = await getDocumentProxy(new Uint8Array(bytes), { verbosity: 0, isEvalSupported: false });
    const { text } = await extractText(pdf, { mergePages: false });
    const info = (await getMeta(pdf).catch(() => ({ info: {} as Record<string, unknown> }))).info;
    const str = (v: unknown) => (typeof v === 'string' && v.trim() ? v.trim() : undefined);
    const title = str(info['Title']);
    const author = str(info['Author']);
    return { pages: text, ...(title ? { title } : {}), ...(author ? { author } : {}) };
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new AppError('unsupported_content', `The PDF could not be read: ${reason}`, { cause: error });
  } finally {
    await pdf?.destroy().catch(() => undefined);
  }
}

/** A page's text as paragraphs: blank lines split paragraphs, wrapped lines are joined. */
export function paragraphsOf(page: string): string[] {
  return page
    .replace(/\r\n?/g, '\n')
    .split(/\n\s*\n/)
    .map((block) =>
      block
        .split('\n')
        .map((line) => line.replace(/\s+/g, ' ').trim())
        .filter(Boolean)
        .join('\n'),
    )
    .filter(Boolean);
}

/** Escapes what would turn a PDF line into markdown structure it did not have. */
const escapeLine = (line: string): string => line.replace(/^(#{1,6}\s|>|[*+]\s|\d+[.)]\s)/, '\\$1');

export async function buildPdfDocument(bytes: Buffer, facts: ResponseFacts, options: ResolvedOptions): Promise<ScrapeDocument> {
  const pdf = await readPdf(bytes);
  const pages = pdf.pages.map(paragraphsOf);
  const wants = options.formats;
  const doc: ScrapeDocument = {
    metadata: {
      ...(pdf.title ? { title: pdf.title } : {}),
      ...(pdf.author ? { author: pdf.author } : {}),
      numPages: pdf.pages.length,
      ...responseMetadata(facts),
    },
  };
  if (wants.has('markdown')) {
    doc.markdown = pages
      .flat()
      .map((p) => p.split('\n').map(escapeLine).join('\n'))
      .join('\n\n');
  }
  if (wants.has('html') || wants.has('rawHtml')) {
    const html = pages
      .map((ps, i) => `<section data-page="${i + 1}">${ps.map((p) => `<p>${escapeHtml(p).replace(/\n/g, '<br>')}</p>`).join('')}</section>`)
      .join('\n');
    if (wants.has('html')) doc.html = html;
    if (wants.has('rawHtml')) doc.rawHtml = html;
  }
  if (wants.has('links')) {
    const links = new Set<string>();
    for (const m of pdf.pages.join('\n').matchAll(/\bhttps?:\/\/[^\s<>"'\])}]+/gi)) {
      const url = linkUrl(m[0].replace(/[.,;:!?]+$/, ''), facts.finalUrl);
      if (url) links.add(url);
    }
    doc.links = [...links];
  }
  if (wants.has('media')) doc.media = [];
  return orderFields(doc);
}
