/**
 * Bodies of the HTTP interface: reading a request body with a size limit, undoing its
 * Content-Encoding, and compressing a response in an encoding the client accepts.
 */
import type { IncomingMessage } from 'node:http';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import { errorCode } from '../../pipeline/runtime/errors.js';

/** A failure with its own HTTP status; its message is already ClickHouse's error text. */
export class HttpFailure extends Error {
  constructor(
    readonly status: number,
    readonly clickhouseCode: number,
    type: string,
    text: string,
  ) {
    super(`Code: ${clickhouseCode}. DB::Exception: ${text}. (${type})`);
    this.name = 'HttpFailure';
  }
}

function tooLarge(limit: number): HttpFailure {
  return new HttpFailure(413, 307, 'TOO_LARGE_STRING_SIZE', `request body is larger than ${limit} bytes`);
}

export async function readBody(request: IncomingMessage, limit: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) throw tooLarge(limit);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, size);
}

type Codec = 'gzip' | 'deflate' | 'br';

const inflate: Record<Codec, (data: Buffer, options: zlib.ZlibOptions & zlib.BrotliOptions) => Promise<Buffer>> = {
  gzip: promisify(zlib.gunzip),
  deflate: promisify(zlib.inflate),
  br: promisify(zlib.brotliDecompress),
};

const deflate: Record<Codec, (data: Buffer) => Promise<Buffer>> = {
  gzip: promisify(zlib.gzip),
  deflate: promisify(zlib.deflate),
  br: promisify(zlib.brotliCompress),
};

function isCodec(value: string): value is Codec {
  return value === 'gzip' || value === 'deflate' || value === 'br';
}

/** The body with its Content-Encoding undone; at most `limit` bytes once inflated. */
export async function decompress(body: Buffer, encoding: string | undefined, limit: number): Promise<Buffer> {
  const codec = (encoding ?? '').trim().toLowerCase();
  if (codec === '' || codec === 'identity' || body.length === 0) return body;
  if (!isCodec(codec)) throw new HttpFailure(400, 1001, 'STD_EXCEPTION', `unsupported Content-Encoding ${JSON.stringify(codec)}`);
  try {
    return await inflate[codec](body, { maxOutputLength: limit });
  } catch (error) {
    if (errorCode(error) === 'ERR_BUFFER_TOO_LARGE') throw tooLarge(limit);
    throw new HttpFailure(400, 1001, 'STD_EXCEPTION', `cannot decompress the ${codec} request body: ${(error as Error).message}`);
  }
}

/** The first encoding of gzip, deflate, br that Accept-Encoding allows; null for none. */
export function pickEncoding(acceptEncoding: string | undefined): Codec | null {
  const accepted = new Set(
    (acceptEncoding ?? '')
      .split(',')
      .map((e) => e.split(';')[0]?.trim().toLowerCase() ?? '')
      .filter((e) => e !== ''),
  );
  return (['gzip', 'deflate', 'br'] as const).find((c) => accepted.has(c) || accepted.has('*')) ?? null;
}

export function compress(body: Buffer, codec: Codec): Promise<Buffer> {
  return deflate[codec](body);
}
