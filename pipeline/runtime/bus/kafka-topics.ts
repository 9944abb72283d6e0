/**
 * `ensureTopics` for Kafka. Missing topics are created with CreateTopics. A broker that
 * refuses it (librdkafka's mock cluster has no CreateTopics; a managed Kafka may forbid it)
 * gets a warning and the topics are created by a metadata request instead, which works where
 * the broker auto-creates topics — with the broker's default partition count, not ours.
 * Either way each topic's partition count is then read back, and a topic with fewer
 * partitions than asked for is logged (Kafka never shrinks a topic, and growing one moves
 * keys to other partitions, so that is left to the operator).
 */
import type { Admin } from 'kafkajs';
import { AppError } from '../errors.js';
import type { Logger } from '../log.js';

export interface TopicSpec {
  name: string;
  partitions: number;
}

function reason(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}

export async function ensureKafkaTopics(admin: Admin, topics: readonly TopicSpec[], log: Logger): Promise<void> {
  if (topics.length === 0) return;
  const names = topics.map((t) => t.name);
  try {
    const existing = new Set(await admin.listTopics());
    const missing = topics.filter((t) => !existing.has(t.name));
    if (missing.length > 0) {
      try {
        await admin.createTopics({
          topics: missing.map((t) => ({ topic: t.name, numPartitions: t.partitions })),
          waitForLeaders: true,
        });
        log.info({ topics: missing }, 'kafka topics created');
      } catch (error) {
        log.warn(
          { topics: missing.map((t) => t.name), err: reason(error) },
          'kafka refused CreateTopics; creating the topics through metadata (broker auto-create, broker default partition count)',
        );
      }
    }
    const { topics: found } = await admin.fetchTopicMetadata({ topics: names });
    for (const spec of topics) {
      const partitions = found.find((t) => t.name === spec.name)?.partitions.length ?? 0;
      if (partitions === 0) throw new Error(`topic ${spec.name} does not exist and could not be created`);
      if (partitions < spec.partitions) {
        log.warn({ topic: spec.name, partitions, wanted: spec.partitions }, 'kafka topic has fewer partitions than its definition');
      }
    }
  } catch (error) {
    throw new AppError('bus_unavailable', `kafka topics ${names.join(', ')} are not available: ${reason(error)}`, { cause: error });
  }
}
