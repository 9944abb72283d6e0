/**
 * pdf.js inflates a PDF's Flate streams into memory whole, whatever they hold: a 1 MB file
 * can carry a stream of 1 GB of zeros. Before pdf.js opens a PDF, each Flate stream is
 * inflated here once and counted against the document's budget (inflate.ts): past its ratio
 * or the total, the PDF is `file_too_complex`. Chained Flate filters
 * (`[/FlateDecode /FlateDecode]`) are inflated through as many layers.
 *
 * The streams are found as bytes, without parsing the file: each `stream` keyword that ends a
 * dictionary, its data up to the next `endstream`, its filters read from the dictionary
 * before it. Images (`/Subtype /Image`) are not counted: text extraction never decodes them,
 * and a scanned page's bitmap legitimately inflates to megabytes at high ratios. What this
 * misses (a stream whose dictionary lies, another filter that expands) is still bounded by
 * the worker's memory and time limits.
 */
import { InflationBudget } from './inflate.js';
import type { DocumentLimits } from './limits.js';

const STREAM = Buffer.from('stream', 'latin1');
const END_STREAM = Buffer.from('endstream', 'latin1');
const OBJ = Buffer.from('obj', 'latin1');
/**
 * How far before `stream` its dictionary is looked for; never before the previous stream's
 * data ended, so the windows do not overlap and the file is read about once (a window of its
 * own for each of 95,000 tiny streams made 1.5 GB of text of a 2 MB file), and a stream's
 * dictionary is never read out of the stream before it (whose data may read like one).
 */
const DICTIONARY_WINDOW = 16 * 1024;

const FLATE = /^\/(?:FlateDecode|Fl)$/;

/** `/Filter`, its spaces and the start of its value: a `[` or a whole name. */
const FILTER_AT = /\/Filter\s*(\[|\/[^\s/<>[\]()]+)/y;

/**
 * The filters a stream dictionary names, in order (`/Filter /A` or `/Filter [/A /B]`): the
 * first `/Filter` that `/\/Filter\s*(\[[^\]]*\]|\/[^\s/<>[\]()]+)/` matches, tried at each
 * `/Filter` in turn. The array's `]` is found with `indexOf`, and not at all past the last
 * `]`: that regex scans to the end again from every `/Filter [` with no `]` after it (quadratic).
 */
export function filtersOf(dictionary: string): string[] {
  const lastClose = dictionary.lastIndexOf(']');
  for (let at = dictionary.indexOf('/Filter'); at >= 0; at = dictionary.indexOf('/Filter', at + 1)) {
    FILTER_AT.lastIndex = at;
    const match = FILTER_AT.exec(dictionary);
    if (!match) continue;
    let value = match[1] as string;
    if (value === '[') {
      if (FILTER_AT.lastIndex > lastClose) continue;
      value = dictionary.slice(FILTER_AT.lastIndex - 1, dictionary.indexOf(']', FILTER_AT.lastIndex) + 1);
    }
    return value.match(/\/[^\s/<>[\]()]+/g) ?? [];
  }
  return [];
}

/** Counts every Flate stream but images; throws `file_too_complex` for a bomb. */
export async function checkPdfStreams(bytes: Buffer, limits: DocumentLimits): Promise<void> {
  const budget = new InflationBudget(limits, 'The PDF');
  let at = 0;
  /** Where the last stream's data ended: no dictionary starts before it. */
  let floor = 0;
  for (;;) {
    at = bytes.indexOf(STREAM, at);
    if (at < 0) return;
    const after = at + STREAM.length;
    const isEnd = at >= 3 && bytes[at - 3] === 0x65 && bytes[at - 2] === 0x6e && bytes[at - 1] === 0x64; // "end"
    const eol = bytes[after] === 0x0d || bytes[after] === 0x0a;
    if (isEnd || !eol) {
      at = after;
      continue;
    }
    let start = after + (bytes[after] === 0x0d ? 1 : 0);
    if (bytes[start] === 0x0a) start++;
    const window = Math.max(floor, at - DICTIONARY_WINDOW);
    const dictionary = bytes.subarray(window + bytes.subarray(window, at).lastIndexOf(OBJ) + 1, at).toString('latin1');
    // The data ends at the next `endstream`, or further when the dictionary's own /Length says
    // so (compressed bytes may happen to hold the word; pdf.js goes by /Length).
    const end = bytes.indexOf(END_STREAM, start);
    const length = Number(/\/Length\s+(\d+)\b(?!\s+\d+\s+R)/.exec(dictionary)?.[1] ?? 0);
    const stop = Math.min(bytes.length, Math.max(end < 0 ? bytes.length : end, start + length));
    at = Math.max(stop, after);
    floor = at;
    if (/\/Subtype\s*\/Image\b/.test(dictionary)) continue;
    const filters = filtersOf(dictionary);
    let layers = 0;
    while (layers < filters.length && FLATE.test(filters[layers] as string)) layers++;
    if (layers === 0) continue;
    await budget.take(bytes.subarray(start, stop), 'zlib', layers, 'stream');
  }
}
