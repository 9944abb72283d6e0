/**
 * Writes infra/kafka/topics.json from the topic table in schemas/topics.ts, for operators who
 * create topics ahead of time (the services also create missing topics at start).
 *
 *   npm run gen:topics            write the file
 *   npm run gen:topics -- --check exit 1 when the file is stale
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { TOPICS } from '../../schemas/topics.js';

export const TOPICS_FILE = join(dirname(fileURLToPath(import.meta.url)), '..', 'kafka', 'topics.json');

/** Events above 512 KiB travel by reference, so 2 MiB per message is ample. */
const MAX_MESSAGE_BYTES = 2 * 1024 * 1024;
const RETENTION_MS = 7 * 24 * 3600 * 1000;

export function topicsDocument(): string {
  const topics = Object.values(TOPICS).map((t) => ({
    name: t.name,
    partitions: t.partitions,
    replicationFactor: 3,
    event: t.event,
    key: t.key,
    producers: t.producers,
    consumers: t.consumers,
    configs: { 'max.message.bytes': String(MAX_MESSAGE_BYTES), 'retention.ms': String(RETENTION_MS) },
  }));
  return `${JSON.stringify({ generatedBy: 'npm run gen:topics (from schemas/topics.ts)', topics }, null, 2)}\n`;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const want = topicsDocument();
  if (process.argv.includes('--check')) {
    const have = readFileSync(TOPICS_FILE, 'utf8');
    if (have !== want) {
      process.stderr.write(`${TOPICS_FILE} is stale: run npm run gen:topics\n`);
      process.exit(1);
    }
  } else {
    writeFileSync(TOPICS_FILE, want);
  }
}
