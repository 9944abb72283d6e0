/**
 * A DOCX is a zip: before mammoth (through jszip) inflates it, every entry is inflated here
 * once and counted, from the archive's own central directory, as jszip reads it: the end
 * record → the central directory → each entry's local header and data. The archive is
 * refused (`file_too_complex`) when an entry inflates past the ratio or all of them past the
 * document's budget (inflate.ts), and read as damaged (`unsupported_content`) when its
 * directory does not hold together. Only stored (0) and deflated (8) entries are inflated,
 * the two methods jszip reads; ZIP64 archives (over 4 GiB or 65,535 entries, which no
 * upload this service takes needs) are not read.
 */
import { AppError } from '../../../pipeline/runtime/errors.js';
import { InflationBudget } from './inflate.js';
import type { DocumentLimits } from './limits.js';

const END_OF_DIRECTORY = 0x06054b50;
const DIRECTORY_ENTRY = 0x02014b50;
const LOCAL_HEADER = 0x04034b50;
/** The end record is 22 bytes and may be followed by a comment of up to 65,535. */
const END_SEARCH = 22 + 0xffff;

function damaged(reason: string): AppError {
  return new AppError('unsupported_content', `The DOCX document could not be read: ${reason}`);
}

function endRecordAt(bytes: Buffer): number {
  for (let at = bytes.length - 22; at >= Math.max(0, bytes.length - END_SEARCH); at--) {
    if (bytes.readUInt32LE(at) === END_OF_DIRECTORY) return at;
  }
  return -1;
}

export interface ZipEntry {
  readonly name: string;
  readonly method: number;
  readonly data: Buffer;
}

/** The archive's entries as its central directory lists them, each with its compressed data. */
export function zipEntries(bytes: Buffer): ZipEntry[] {
  const end = endRecordAt(bytes);
  if (end < 0) throw damaged('it is not a zip archive (no end of central directory)');
  const count = bytes.readUInt16LE(end + 10);
  const size = bytes.readUInt32LE(end + 12);
  const offset = bytes.readUInt32LE(end + 16);
  if (count === 0xffff || offset === 0xffffffff || size === 0xffffffff) throw damaged('ZIP64 archives are not read');
  if (offset + size > end) throw damaged('its central directory lies outside the file');
  const entries: ZipEntry[] = [];
  let at = offset;
  for (let i = 0; i < count; i++) {
    if (at + 46 > end || bytes.readUInt32LE(at) !== DIRECTORY_ENTRY) throw damaged(`entry ${i + 1} of its central directory is broken`);
    const method = bytes.readUInt16LE(at + 10);
    const compressed = bytes.readUInt32LE(at + 20);
    const nameLength = bytes.readUInt16LE(at + 28);
    const extraLength = bytes.readUInt16LE(at + 30);
    const commentLength = bytes.readUInt16LE(at + 32);
    const local = bytes.readUInt32LE(at + 42);
    const name = bytes.subarray(at + 46, at + 46 + nameLength).toString('utf8');
    at += 46 + nameLength + extraLength + commentLength;
    if (local + 30 > bytes.length || bytes.readUInt32LE(local) !== LOCAL_HEADER) throw damaged(`the entry "${name}" has no local header`);
    const start = local + 30 + bytes.readUInt16LE(local + 26) + bytes.readUInt16LE(local + 28);
    if (start + compressed > bytes.length) throw damaged(`the entry "${name}" runs past the end of the file`);
    entries.push({ name, method, data: bytes.subarray(start, start + compressed) });
  }
  return entries;
}

/** Inflates and counts every entry; throws `file_too_complex` for a bomb, `unsupported_content` for a broken archive. */
export async function checkZipInflation(bytes: Buffer, limits: DocumentLimits): Promise<void> {
  const budget = new InflationBudget(limits, 'The DOCX');
  for (const entry of zipEntries(bytes)) {
    if (entry.method === 8) await budget.take(entry.data, 'raw', 1, `entry "${entry.name}"`);
  }
}
