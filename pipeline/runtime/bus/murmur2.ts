/**
 * Key → partition, the way Kafka's default partitioner does it (Java client's `Utils.murmur2`
 * over the key's UTF-8 bytes, made positive with `& 0x7fffffff`, modulo the partition count;
 * kafkajs's `Partitioners.DefaultPartitioner` is the same function). The memory bus uses it so
 * a key lands on the same partition number in both buses when the partition counts agree.
 */

const SEED = 0x9747b28c;
const M = 0x5bd1e995;

/** Kafka's murmur2 as a signed 32-bit integer. */
export function murmur2(data: Uint8Array): number {
  const length = data.length;
  let h = SEED ^ length;
  const whole = length & ~3;
  for (let i = 0; i < whole; i += 4) {
    let k = (data[i] as number) | ((data[i + 1] as number) << 8) | ((data[i + 2] as number) << 16) | ((data[i + 3] as number) << 24);
    k = Math.imul(k, M);
    k ^= k >>> 24;
    k = Math.imul(k, M);
    h = Math.imul(h, M) ^ k;
  }
  const rest = length & 3;
  if (rest === 3) h ^= (data[whole + 2] as number) << 16;
  if (rest >= 2) h ^= (data[whole + 1] as number) << 8;
  if (rest >= 1) {
    h ^= data[whole] as number;
    h = Math.imul(h, M);
  }
  h ^= h >>> 13;
  h = Math.imul(h, M);
  h ^= h >>> 15;
  return h | 0;
}

/** The partition (0 ≤ p < partitions) of `key`. */
export function partitionOf(key: string, partitions: number): number {
  return (murmur2(Buffer.from(key, 'utf8')) & 0x7fffffff) % partitions;
}
