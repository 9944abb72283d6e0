/**
 * The partition assigner of a Kafka group member (kafka-member.ts).
 */
import kafkajs, { type PartitionAssigner } from 'kafkajs';

const { PartitionAssigners } = kafkajs;

/**
 * kafkajs's round-robin assigner, whose leader waits `delayMs` before answering. A group's
 * members all get their JoinGroup answer at once; the leader then refreshes metadata, assigns
 * and sends SyncGroup while each follower sends its SyncGroup at once. Apache Kafka takes the
 * two in either order. librdkafka's mock cluster (the tests' broker) answers a follower's
 * SyncGroup that arrives after the leader's with INVALID_REQUEST, which kafkajs treats as
 * fatal: the member restarts and the group rebalances again (a session timeout each time).
 * A leader that waits lets the followers go first. Same name and version as the round-robin
 * assigner, so members with and without the wait share a group.
 */
export function leaderWaits(delayMs: number, inner: PartitionAssigner = PartitionAssigners.roundRobin): PartitionAssigner {
  return (config) => {
    const assigner = inner(config);
    return {
      name: assigner.name,
      version: assigner.version,
      protocol: (subscription) => assigner.protocol(subscription),
      async assign(group) {
        await new Promise<void>((resolve) => setTimeout(resolve, delayMs));
        return assigner.assign(group);
      },
    };
  };
}
