/**
 * Text encoding of a fetched body, and the body decoded to a string, decided the way browsers
 * decide it: the HTML standard's encoding sniffing algorithm over the WHATWG Encoding
 * standard's labels and decoders. This module checks for a BOM and orders the steps;
 * encoding-sniffer maps the header's label, prescans the markup and decodes (its label table
 * and decoders are @exodus/bytes').
 *   1. a byte-order mark (UTF-8, UTF-16LE, UTF-16BE) — it wins even over the header;
 *   2. the `charset` parameter of the Content-Type header (the transport layer);
 *   3. the prescan of the first 1024 bytes: `<meta charset>` or `<meta http-equiv=
 *      "Content-Type" content="…charset=…">` (comments skipped; the first usable one wins),
 *      else a UTF-16 `<?xml` prefix or an XML declaration's `encoding`;
 *   4. UTF-8 — this service's default, where a browser would guess from its locale
 *      (windows-1252 for most).
 * A label the Encoding standard does not know is ignored and the next step decides; the
 * standard's table maps the rest (`iso-8859-1`, `latin1` and `ascii` mean windows-1252,
 * `iso-8859-9` windows-1254, `tis-620` windows-874, `gb2312` GBK, `x-sjis` Shift_JIS). A
 * markup claim of UTF-16 means UTF-8 (the claim was read as ASCII) and x-user-defined means
 * windows-1252. Labels of the "replacement" encoding (iso-2022-kr, hz-gb-2312, …) decode,
 * as in browsers, to a single U+FFFD.
 * Every body goes through the same steps, HTML or not (text/plain and JSON too, as before),
 * so a sitemap's or feed's XML declaration is read — also after leading whitespace, which the
 * standard would not allow; a meta in the window wins over an XML declaration.
 * The decoders are the standard's (through encoding-sniffer), not Node's ICU TextDecoder or
 * iconv-lite: both differ from the standard's tables (windows-874, windows-1255, koi8-u,
 * Big5, EUC-KR, …) and neither has every encoding.
 */
import { decodeBuffer, getEncoding } from 'encoding-sniffer';

export type CharsetSource = 'bom' | 'header' | 'meta' | 'default';

export interface DecodedText {
  readonly text: string;
  /** The encoding used: its WHATWG name, lower-cased (`utf-8`, `windows-1251`, `shift_jis`, `gbk`). */
  readonly charset: string;
  /** `meta` also covers an XML declaration and a UTF-16 `<?xml` prefix. */
  readonly source: CharsetSource;
}

/** How far the prescan reads: the HTML standard's number. */
const PRESCAN_BYTES = 1024;
const DEFAULT_CHARSET = 'utf-8';
const NO_BYTES = new Uint8Array(0);

/**
 * The encoding encoding-sniffer settles on for these bytes and this transport-layer label, as
 * its WHATWG name lower-cased; null when neither names one the standard knows. getEncoding
 * falls back to its default otherwise, so two runs with different defaults agree only when the
 * label or the bytes decided. (Its Sniffer, which says which step decided, is only exported
 * from the `encoding-sniffer/sniffer` subpath, which the architecture test's madge cannot
 * resolve.)
 */
function decided(bytes: Uint8Array, label?: string): string | null {
  const transport = label ? { transportLayerEncodingLabel: label } : {};
  const one = getEncoding(bytes, { ...transport, maxBytes: PRESCAN_BYTES, defaultEncoding: 'utf-8' });
  const other = getEncoding(bytes, { ...transport, maxBytes: PRESCAN_BYTES, defaultEncoding: 'windows-1252' });
  return one === other ? one.toLowerCase() : null;
}

/** The WHATWG name (lower-cased) of a charset label, or null when the standard does not know it. */
export function normalizeCharset(label: string | null | undefined): string | null {
  const clean = label?.trim().replace(/^["']|["']$/g, '');
  return clean ? decided(NO_BYTES, clean) : null;
}

/** The `charset` parameter of a Content-Type value. */
export function charsetFromContentType(contentType: string | null | undefined): string | null {
  const match = /;\s*charset\s*=\s*("[^"]*"|[^;\s]*)/i.exec(contentType ?? '');
  return match ? (match[1] as string).replace(/"/g, '') : null;
}

const BOMS = [
  { charset: 'utf-8', bytes: [0xef, 0xbb, 0xbf] },
  { charset: 'utf-16le', bytes: [0xff, 0xfe] },
  { charset: 'utf-16be', bytes: [0xfe, 0xff] },
] as const;

function bomOf(body: Buffer): (typeof BOMS)[number] | undefined {
  return BOMS.find((bom) => bom.bytes.every((byte, i) => body[i] === byte));
}

const SPACE = Buffer.from(' ');
const XML_DECLARATION = /^[\t\n\f\r ]+<\?xml/;

/**
 * The bytes the prescan reads: the first 1024 of a body with no BOM, with two adjustments. An
 * XML declaration after leading whitespace is read from its `<` (the window still ends at byte
 * 1024). A first byte 0xEF (which here begins no BOM) is read as a space: encoding-sniffer
 * 1.0.2 would otherwise stay in its BOM state for the rest of the window, missing every meta
 * and taking a later U+FEFF (EF BB BF) for a BOM; the prescan itself skips such a byte.
 */
function prescanWindow(body: Buffer): Uint8Array {
  const window = body.subarray(0, PRESCAN_BYTES);
  if (window[0] === 0xef) return Buffer.concat([SPACE, window.subarray(1)]);
  const xml = XML_DECLARATION.exec(window.toString('latin1'));
  return xml ? window.subarray(xml[0].length - '<?xml'.length) : window;
}

/**
 * The encoding the first 1024 bytes declare (meta charset, http-equiv, UTF-16 `<?xml` prefix or
 * XML declaration), as its WHATWG name, lower-cased; null when they declare none the standard
 * knows. A leading BOM is skipped: this is what the markup says, not what decodeBody will use.
 */
export function charsetFromMarkup(body: Buffer): string | null {
  return decided(prescanWindow(body.subarray(bomOf(body)?.bytes.length ?? 0)));
}

/** Which encoding a body is in, and how that was decided. */
export function detectCharset(body: Buffer, contentType?: string | null): { charset: string; source: CharsetSource; bomLength: number } {
  const bom = bomOf(body);
  if (bom) return { charset: bom.charset, source: 'bom', bomLength: bom.bytes.length };
  const label = charsetFromContentType(contentType)?.trim();
  const header = label ? decided(NO_BYTES, label) : null;
  if (header) return { charset: header, source: 'header', bomLength: 0 };
  const markup = decided(prescanWindow(body));
  if (markup) return { charset: markup, source: 'meta', bomLength: 0 };
  return { charset: DEFAULT_CHARSET, source: 'default', bomLength: 0 };
}

/** The body as text (BOM removed). The bytes themselves are left untouched. */
export function decodeBody(body: Buffer, contentType?: string | null): DecodedText {
  const { charset, source } = detectCharset(body, contentType);
  // The Encoding standard's replacement decoder gives one U+FFFD for any non-empty input.
  if (charset === 'replacement') return { text: body.length > 0 ? '\uFFFD' : '', charset, source };
  // maxBytes 0: the encoding is decided, encoding-sniffer only picks the standard's decoder
  // for it (which drops a BOM of that encoding).
  return { text: decodeBuffer(body, { transportLayerEncodingLabel: charset, maxBytes: 0 }), charset, source };
}
