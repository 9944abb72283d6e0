/**
 * What kind of document a body is: from its media type, a file name's extension, or its
 * first bytes. Each function answers null when it cannot tell (or the kind is one the
 * parser does not read), so callers chain them: declared type → extension → magic bytes.
 */
export type DocumentKind = 'html' | 'markdown' | 'text' | 'json' | 'xml' | 'pdf' | 'docx';

export const DOCX_TYPE = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';

/** The canonical media type of each kind (for `metadata.contentType` of uploads). */
export const MEDIA_TYPE_OF: Readonly<Record<DocumentKind, string>> = {
  html: 'text/html',
  markdown: 'text/markdown',
  text: 'text/plain',
  json: 'application/json',
  xml: 'application/xml',
  pdf: 'application/pdf',
  docx: DOCX_TYPE,
};

/** `text/html; charset=x` → `text/html`. */
export function mediaTypeOf(contentType: string | null | undefined): string {
  return (contentType ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
}

/** A type that says nothing about the body: none, or octet-stream. */
export function isUndeclared(contentType: string | null | undefined): boolean {
  const type = mediaTypeOf(contentType);
  return type === '' || type === 'application/octet-stream' || type === 'binary/octet-stream' || type === 'application/unknown';
}

export function kindOfMediaType(contentType: string | null | undefined): DocumentKind | null {
  const type = mediaTypeOf(contentType);
  if (type === 'text/html' || type === 'application/xhtml+xml') return 'html';
  if (type === 'text/markdown' || type === 'text/x-markdown') return 'markdown';
  if (type === 'application/json' || type === 'text/json' || type.endsWith('+json')) return 'json';
  if (type === 'application/xml' || type === 'text/xml' || type.endsWith('+xml')) return 'xml';
  if (type === 'application/pdf' || type === 'application/x-pdf') return 'pdf';
  if (type === DOCX_TYPE) return 'docx';
  if (type.startsWith('text/')) return 'text';
  return null;
}

const EXTENSIONS: Readonly<Record<string, DocumentKind>> = {
  html: 'html',
  htm: 'html',
  xhtml: 'html',
  md: 'markdown',
  markdown: 'markdown',
  mdown: 'markdown',
  mkd: 'markdown',
  txt: 'text',
  text: 'text',
  csv: 'text',
  tsv: 'text',
  log: 'text',
  json: 'json',
  xml: 'xml',
  pdf: 'pdf',
  docx: 'docx',
};

export function kindOfFilename(filename: string | null | undefined): DocumentKind | null {
  const ext = /\.([a-z0-9]+)$/i.exec(filename ?? '')?.[1]?.toLowerCase();
  return ext ? (EXTENSIONS[ext] ?? null) : null;
}

/**
 * The kinds the first bytes tell for certain, whatever a body was declared as: `%PDF-`, and
 * a zip holding word/document.xml. Five bytes read for any other body (the page path's cost).
 */
export function magicKind(bytes: Buffer): 'pdf' | 'docx' | null {
  if (bytes.length >= 5 && bytes[0] === 0x25 && bytes[1] === 0x50 && bytes[2] === 0x44 && bytes[3] === 0x46 && bytes[4] === 0x2d) return 'pdf';
  if (bytes.length >= 4 && bytes.readUInt32LE(0) === 0x04034b50 && bytes.includes('word/document.xml')) return 'docx';
  return null;
}

const MARKUP = /^<(?:!doctype\s+html|html|head|body|meta|title|div|p\b|!--)/;

/**
 * The kind from the first bytes: `%PDF-`; a zip whose entries include word/document.xml
 * (entry names are stored uncompressed, so a byte search finds them); HTML markup; an XML
 * declaration; JSON; other text. Null for binary (a NUL byte in the first KB) and other zips.
 */
export function sniffKind(bytes: Buffer): DocumentKind | null {
  if (bytes.subarray(0, 5).toString('latin1') === '%PDF-') return 'pdf';
  if (bytes.length >= 4 && bytes.readUInt32LE(0) === 0x04034b50) return bytes.includes('word/document.xml') ? 'docx' : null;
  const head = bytes.subarray(0, 1024);
  if (head.includes(0)) return null;
  const text = head.toString('latin1').replace(/^\xEF\xBB\xBF/, '').trimStart().toLowerCase();
  if (MARKUP.test(text)) return 'html';
  if (text.startsWith('<?xml')) return /<html[\s>]/.test(text) ? 'html' : 'xml';
  if (text.startsWith('{') || text.startsWith('[')) return 'json';
  return 'text';
}
