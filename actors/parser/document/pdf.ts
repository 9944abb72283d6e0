/**
 * PDF → text per page (unpdf, i.e. pdf.js), written as markdown paragraphs; `html` is one
 * `<section data-page="n">` of `<p>`s per page, and `rawHtml` is that same HTML (a PDF has
 * no HTML of its own; Firecrawl does the same). Metadata gains `numPages` (the PDF's own
 * count), and `title` / `author` from the PDF's info dictionary when present. Text-only:
 * scanned pages without a text layer come out empty (no OCR here).
 *
 * Bounded (limits.ts): the Flate streams are counted before pdf.js opens the file
 * (pdf-streams.ts); pages are read one at a time, in order, up to DOCUMENT_MAX_PAGES, and
 * none is begun once the read budget (three quarters of DOCUMENT_TIMEOUT_MS) has passed. A PDF
 * cut short answers the pages read with a `warning` saying how many of how many. (unpdf's
 * `extractText` asks pdf.js for every page at once: 100,000 pages held the heap until it died.)
 *
 * A file pdf.js cannot open (corrupt, truncated, encrypted) is `unsupported_content` with
 * the reason; never a crash. unpdf is imported on first use: HTML pages never pay for it.
 */
import { AppError } from '../../../pipeline/runtime/errors.js';
import { trimEndOf } from '../../../pipeline/runtime/trim.js';
import { linkUrl } from '../formats/urls.js';
import { orderFields, responseMetadata, type ResponseFacts } from './html.js';
import type { DocumentLimits } from './limits.js';
import type { ResolvedOptions } from './options.js';
import { checkPdfStreams } from './pdf-streams.js';
import type { ScrapeDocument } from './types.js';

export interface PdfText {
  /** The text of the pages read, from the first. */
  readonly pages: string[];
  /** The PDF's own page count. */
  readonly numPages: number;
  /** Why fewer pages than `numPages` were read. */
  readonly stopped?: 'pages' | 'time';
  readonly title?: string;
  readonly author?: string;
}

const escapeHtml = (text: string): string => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** Reads the text of a PDF within its limits; throws `unsupported_content` when pdf.js cannot, `file_too_complex` for a bomb. */
export async function readPdf(bytes: Buffer, limits: DocumentLimits, now: () => number = Date.now): Promise<PdfText> {
  const started = now();
  await checkPdfStreams(bytes, limits);
  const { getDocumentProxy, getMeta } = await import('unpdf');
  let pdf: Awaited<ReturnType<typeof getDocumentProxy>> | undefined;
  try {
    // pdf.js may transfer (detach) the buffer it is given: hand it a copy.
    pdf = await getDocumentProxy(new Uint8Array(bytes), { verbosity: 0, isEvalSupported: false });
    const numPages = pdf.numPages;
    const last = Math.min(numPages, limits.maxPages);
    const pages: string[] = [];
    let stopped: PdfText['stopped'] = last < numPages ? 'pages' : undefined;
    for (let number = 1; number <= last; number++) {
      if (number > 1 && limits.readBudgetMs > 0 && now() - started > limits.readBudgetMs) {
        stopped = 'time';
        break;
      }
      const page = await pdf.getPage(number);
      const content = await page.getTextContent();
      // As unpdf's extractText joins a page's items.
      pages.push(content.items.map((item) => ('str' in item ? item.str + (item.hasEOL ? '\n' : '') : '')).join(''));
      page.cleanup();
    }
    const info = (await getMeta(pdf).catch(() => ({ info: {} as Record<string, unknown> }))).info;
    const str = (v: unknown) => (typeof v === 'string' && v.trim() ? v.trim() : undefined);
    const title = str(info['Title']);
    const author = str(info['Author']);
    return { pages, numPages, ...(stopped ? { stopped } : {}), ...(title ? { title } : {}), ...(author ? { author } : {}) };
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new AppError('unsupported_content', `The PDF could not be read: ${reason}`, { cause: error });
  } finally {
    await pdf?.destroy().catch(() => undefined);
  }
}

/** What a PDF read short says in the document's `warning`. */
export function pdfWarning(pdf: PdfText, limits: DocumentLimits): string | undefined {
  const read = pdf.pages.length;
  if (pdf.stopped === 'pages') return `Only the first ${read} of the PDF's ${pdf.numPages} pages were read: this instance reads at most ${limits.maxPages} pages of a document.`;
  if (pdf.stopped === 'time') {
    const seconds = Number((limits.readBudgetMs / 1000).toFixed(1));
    return `Only the first ${read} of the PDF's ${pdf.numPages} pages were read: reading stopped after ${seconds} s, three quarters of this instance's time limit for a document.`;
  }
  return undefined;
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

export async function buildPdfDocument(bytes: Buffer, facts: ResponseFacts, options: ResolvedOptions, limits: DocumentLimits): Promise<ScrapeDocument> {
  const pdf = await readPdf(bytes, limits);
  const pages = pdf.pages.map(paragraphsOf);
  const wants = options.formats;
  const doc: ScrapeDocument = {
    metadata: {
      ...(pdf.title ? { title: pdf.title } : {}),
      ...(pdf.author ? { author: pdf.author } : {}),
      numPages: pdf.numPages,
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
      // One pass from the end: /[.,;:!?]+$/ is quadratic over a long inner run of dots.
      const url = linkUrl(trimEndOf(m[0], '.,;:!?'), facts.finalUrl);
      if (url) links.add(url);
    }
    doc.links = [...links];
  }
  if (wants.has('media')) doc.media = [];
  const warning = pdfWarning(pdf, limits);
  if (warning) doc.warning = warning;
  return orderFields(doc);
}
