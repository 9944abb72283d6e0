/**
 * Text encoding of a fetched body, and the body decoded to a string. The order is the one
 * browsers use (WHATWG Encoding "decode" + HTML encoding sniffing):
 *   1. a byte-order mark (UTF-8, UTF-16LE, UTF-16BE) — it wins even over the header, since a
 *      BOM is never wrong about the bytes that follow it;
 *   2. the `charset` parameter of the Content-Type header;
 *   3. `<meta charset>` / `<meta http-equiv="Content-Type" content="…charset=…">`, or an XML
 *      declaration's `encoding`, within the first 4 KB;
 *   4. UTF-8.
 * Labels are mapped the WHATWG way where it matters (`iso-8859-1`, `latin1` and `us-ascii`
 * mean windows-1252); a label iconv-lite does not know falls through to the next step.
 */
import iconv from 'iconv-lite';

export type CharsetSource = 'bom' | 'header' | 'meta' | 'default';

export interface DecodedText {
  readonly text: string;
  /** The encoding used, as iconv-lite names it (`utf-8`, `windows-1251`, `shift_jis`). */
  readonly charset: string;
  readonly source: CharsetSource;
}

const SNIFF_BYTES = 4096;

const WHATWG_ALIASES: Record<string, string> = {
  'iso-8859-1': 'windows-1252',
  iso8859_1: 'windows-1252',
  'iso_8859-1': 'windows-1252',
  latin1: 'windows-1252',
  l1: 'windows-1252',
  'us-ascii': 'windows-1252',
  ascii: 'windows-1252',
  'x-sjis': 'shift_jis',
  'shift-jis': 'shift_jis',
  sjis: 'shift_jis',
  'x-gbk': 'gbk',
  gb2312: 'gbk',
  'x-euc-jp': 'euc-jp',
  unicode: 'utf-16le',
  'utf-16': 'utf-16le',
  utf8: 'utf-8',
};

/** The iconv-lite name of a charset label, or null when unknown. */
export function normalizeCharset(label: string | null | undefined): string | null {
  if (!label) return null;
  const clean = label.trim().replace(/^["']|["']$/g, '').toLowerCase();
  if (!clean) return null;
  const name = WHATWG_ALIASES[clean] ?? clean;
  return iconv.encodingExists(name) ? name : null;
}

/** The `charset` parameter of a Content-Type value. */
export function charsetFromContentType(contentType: string | null | undefined): string | null {
  const match = /;\s*charset\s*=\s*("[^"]*"|[^;\s]*)/i.exec(contentType ?? '');
  return match ? (match[1] as string).replace(/"/g, '') : null;
}

function bomOf(body: Buffer): { charset: string; length: number } | null {
  if (body.length >= 3 && body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf) return { charset: 'utf-8', length: 3 };
  if (body.length >= 2 && body[0] === 0xff && body[1] === 0xfe) return { charset: 'utf-16le', length: 2 };
  if (body.length >= 2 && body[0] === 0xfe && body[1] === 0xff) return { charset: 'utf-16be', length: 2 };
  return null;
}

/** A charset declared inside the first 4 KB: meta charset, http-equiv, or XML declaration. */
export function charsetFromMarkup(body: Buffer): string | null {
  const head = body.subarray(0, SNIFF_BYTES).toString('latin1');
  const xml = /^\s*<\?xml[^>]*\bencoding\s*=\s*["']([^"']+)["']/i.exec(head);
  if (xml) return xml[1] as string;
  // `charset=` inside a meta tag is either the charset attribute or the charset parameter of
  // an http-equiv Content-Type's content: the same pattern reads both.
  for (const tag of head.match(/<meta\b[^>]*>/gi) ?? []) {
    const declared = /\bcharset\s*=\s*["']?\s*([\w.:-]+)/i.exec(tag);
    if (declared) return declared[1] as string;
  }
  return null;
}

/** Which encoding a body is in, and how that was decided. */
export function detectCharset(body: Buffer, contentType?: string | null): { charset: string; source: CharsetSource; bomLength: number } {
  const bom = bomOf(body);
  if (bom) return { charset: bom.charset, source: 'bom', bomLength: bom.length };
  const header = normalizeCharset(charsetFromContentType(contentType));
  if (header) return { charset: header, source: 'header', bomLength: 0 };
  const meta = normalizeCharset(charsetFromMarkup(body));
  // A page whose markup claims UTF-16 was read as ASCII to find that claim: it is not UTF-16.
  if (meta && !meta.startsWith('utf-16')) return { charset: meta, source: 'meta', bomLength: 0 };
  return { charset: 'utf-8', source: 'default', bomLength: 0 };
}

/** The body as text (BOM removed). The bytes themselves are left untouched. */
export function decodeBody(body: Buffer, contentType?: string | null): DecodedText {
  const { charset, source, bomLength } = detectCharset(body, contentType);
  return { text: iconv.decode(body.subarray(bomLength), charset, { stripBOM: true }), charset, source };
}
