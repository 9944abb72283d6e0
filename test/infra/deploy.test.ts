import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { TOPICS_FILE, topicsDocument } from '../../infra/gen-topics.js';
import { ROLES } from '../../schemas/topics.js';
import { engine } from '../helpers/engines.js';
import { REPO_ROOT } from '../helpers/process.js';

const run = promisify(execFile);
const hasCompose = await engine('docker-compose', () => existsSync('/usr/bin/docker-compose'), 'apt-get install -y docker-compose');
const compose = readFileSync(join(REPO_ROOT, 'docker-compose.yml'), 'utf8');

/** The block of one top-level service in docker-compose.yml (two-space indented keys). */
function serviceBlock(name: string): string {
  const match = new RegExp(`^  ${name}:\\n((?:    .*\\n|\\s*\\n)*)`, 'm').exec(compose);
  return match?.[1] ?? '';
}

describe('infra', () => {
  it('infra/kafka/topics.json is what npm run gen:topics writes now', () => {
    expect(readFileSync(TOPICS_FILE, 'utf8')).toBe(topicsDocument());
  });

  it('docker-compose.yml runs the engines and every role as its own service with a replica count', () => {
    for (const engineService of ['kafka', 'schema-registry', 'clickhouse', 'redis']) {
      expect(serviceBlock(engineService), engineService).not.toBe('');
    }
    expect(serviceBlock('kafka')).toContain('KAFKA_PROCESS_ROLES: broker,controller'); // KRaft, no ZooKeeper
    for (const role of ROLES) {
      const block = serviceBlock(role);
      expect(block, `service ${role}`).toContain(`"--role", "${role}"`);
      expect(block, `service ${role}`).toMatch(/deploy:\n\s+replicas: \d+/);
    }
  });

  it('the image carries what the service reads at run time', () => {
    const dockerfile = readFileSync(join(REPO_ROOT, 'Dockerfile'), 'utf8');
    expect(dockerfile).toContain('COPY --from=build /app/schemas/events ./schemas/events');
    expect(dockerfile).toContain('COPY --from=build /app/infra/clickhouse ./infra/clickhouse');
    expect(dockerfile).toContain('CMD ["node", "dist/main.js"]');
  });

  describe.skipIf(!hasCompose)('docker-compose config', () => {
    it('accepts docker-compose.yml', async () => {
      const { stdout } = await run('docker-compose', ['-f', 'docker-compose.yml', 'config', '--services'], { cwd: REPO_ROOT });
      const services = stdout.trim().split('\n');
      expect(services).toEqual(expect.arrayContaining(['kafka', 'schema-registry', 'clickhouse', 'redis', ...ROLES]));
    });
  });
});
