/**
 * Schema fingerprints as the Avro specification defines them for single-object encoding:
 * the 64-bit Rabin fingerprint ("CRC-64-AVRO") of the UTF-8 bytes of the schema's Parsing
 * Canonical Form.
 *
 * The canonical form comes from avsc: `JSON.stringify(type.schema())` strips docs, aliases,
 * defaults, order and other attributes, writes full names, inlines only the first use of a
 * named type and orders keys name, type, fields, symbols, items, values, size, which is the
 * spec's form. test/pipeline/codec.fingerprint.test.ts checks both the canonical forms and the
 * fingerprints against the Avro project's shared test vectors (share/test/data/schema-tests.txt).
 */
import type { Type } from 'avsc';

/** The fingerprint of the empty input, and the polynomial of the table (Avro spec). */
const EMPTY = 0xc15d213aa4d7a795n;

const TABLE: readonly bigint[] = Array.from({ length: 256 }, (_, i) => {
  let fp = BigInt(i);
  for (let j = 0; j < 8; j++) fp = (fp >> 1n) ^ (fp & 1n ? EMPTY : 0n);
  return fp;
});

/** CRC-64-AVRO of `bytes`, as an unsigned 64-bit value (the spec's table-driven algorithm). */
export function rabin64(bytes: Uint8Array): bigint {
  let fp = EMPTY;
  for (const byte of bytes) fp = (fp >> 8n) ^ (TABLE[Number((fp ^ BigInt(byte)) & 0xffn)] as bigint);
  return fp;
}

/** The Parsing Canonical Form of a compiled schema. */
export function canonicalForm(type: Type): string {
  return JSON.stringify(type.schema());
}

/** The CRC-64-AVRO fingerprint of a compiled schema's Parsing Canonical Form. */
export function schemaFingerprint(type: Type): bigint {
  return rabin64(Buffer.from(canonicalForm(type), 'utf8'));
}

/** The fingerprint as single-object encoding writes it: 8 bytes, little-endian. */
export function fingerprintBytes(fingerprint: bigint): Buffer {
  const out = Buffer.alloc(8);
  out.writeBigUInt64LE(fingerprint);
  return out;
}

/** Hex of the little-endian bytes, the way the fingerprint appears on the wire and in logs. */
export function fingerprintHex(fingerprint: bigint): string {
  return fingerprintBytes(fingerprint).toString('hex');
}
