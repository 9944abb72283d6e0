/**
 * The Redis Cluster hash slot of a key: CRC16 (XMODEM) of the key, or of its hash tag (the
 * text between the first `{` and the next `}`, when not empty), modulo 16384. Keys that share
 * a hash tag share a slot, which every multi-key command and script on a cluster needs
 * (docs/scaling.md "Redis"). RedisState groups a multi-key DEL by it.
 */
const TABLE = (() => {
  const table = new Uint16Array(256);
  for (let i = 0; i < 256; i++) {
    let crc = i << 8;
    for (let bit = 0; bit < 8; bit++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
    table[i] = crc;
  }
  return table;
})();

function crc16(bytes: Uint8Array): number {
  let crc = 0;
  for (const byte of bytes) crc = ((crc << 8) & 0xffff) ^ (TABLE[((crc >> 8) ^ byte) & 0xff] as number);
  return crc;
}

/** The part of `key` Redis Cluster hashes: its hash tag when it has a non-empty one, else the whole key. */
export function hashedPart(key: string): string {
  const open = key.indexOf('{');
  if (open < 0) return key;
  const close = key.indexOf('}', open + 1);
  return close > open + 1 ? key.slice(open + 1, close) : key;
}

export const SLOTS = 16384;

export function keySlot(key: string): number {
  return crc16(Buffer.from(hashedPart(key), 'utf8')) % SLOTS;
}
