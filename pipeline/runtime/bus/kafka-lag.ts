/**
 * Consumer lag on Kafka, read through the admin client when metrics are scraped: for each
 * group a member of this process joined, the group's committed offsets (OffsetFetch) against
 * each partition's high watermark (ListOffsets). A partition the group never committed counts
 * from the partition's low watermark, as the group would read it from the beginning.
 * Failures are the caller's: a scrape without lag figures, never a failed process.
 */
import type { Admin } from 'kafkajs';
import type { ConsumerLag } from './bus.js';

export async function kafkaLag(admin: Admin, groups: ReadonlyMap<string, ReadonlySet<string>>): Promise<ConsumerLag[]> {
  const ends = new Map<string, Promise<{ partition: number; high: string; low: string }[]>>();
  const endsOf = (topic: string) => {
    let found = ends.get(topic);
    if (!found) {
      found = admin.fetchTopicOffsets(topic);
      ends.set(topic, found);
    }
    return found;
  };
  const out: ConsumerLag[] = [];
  for (const [group, topics] of groups) {
    const committed = await admin.fetchOffsets({ groupId: group, topics: [...topics] });
    for (const { topic, partitions } of committed) {
      const marks = new Map((await endsOf(topic)).map((p) => [p.partition, p]));
      for (const { partition, offset } of partitions) {
        const mark = marks.get(partition);
        if (!mark) continue;
        const position = Number(offset) >= 0 ? Number(offset) : Number(mark.low);
        out.push({ group, topic, partition, lag: Math.max(0, Number(mark.high) - position) });
      }
    }
  }
  return out;
}
