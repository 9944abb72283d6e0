/**
 * A Kafka group member in a process of its own, for tests that kill it (SIGKILL) mid-stream.
 *
 *   node --import tsx test/helpers/kafka-member.ts <brokers> <topic> <group> <handlerDelayMs> <sessionTimeoutMs>
 *
 * Prints `ready` once it has joined, then `start <id> <partition>` when a handler begins and
 * `done <id> <partition>` when it resolved (message values are JSON with a numeric `id`).
 * Bus log lines go to stderr.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { KafkaBus } from '../../pipeline/runtime/bus/kafka.js';
import { createLogger } from '../../pipeline/runtime/log.js';

const [brokers = '', topic = '', group = '', delay = '100', session = '6000'] = process.argv.slice(2);
const bus = await KafkaBus.connect({
  brokers: brokers.split(','),
  clientId: 'bus-test-member',
  log: createLogger('warn', { write: (line: string) => void process.stderr.write(line) }),
  connectTimeoutMs: 15_000,
  sessionTimeoutMs: Number(session),
  heartbeatIntervalMs: 500,
  maxWaitTimeMs: 250,
  leaderSyncDelayMs: 300,
});
await bus.consume({
  group,
  topics: [topic],
  concurrency: 2,
  handler: async (message) => {
    const { id } = JSON.parse(message.value.toString('utf8')) as { id: number };
    process.stdout.write(`start ${id} ${message.partition}\n`);
    await sleep(Number(delay));
    process.stdout.write(`done ${id} ${message.partition}\n`);
  },
});
process.stdout.write('ready\n');
