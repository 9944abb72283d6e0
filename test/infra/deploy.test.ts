import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { nodeFlagsOf } from '../../infra/codegen/deploy-roles.js';
import { deployFiles } from '../../infra/codegen/gen-deploy.js';
import { TOPICS_FILE, topicsDocument } from '../../infra/codegen/gen-topics.js';
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

  it('the pools\' Kubernetes manifests, the kustomization and docker-compose\'s pool services are what npm run gen:deploy writes now', () => {
    for (const [file, want] of deployFiles()) expect(readFileSync(file, 'utf8'), file).toBe(want);
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

  it('runs each pool with the node flags of its deployment row, which this node accepts', async () => {
    const pools = ROLES.filter((r) => r !== 'gateway');
    expect(nodeFlagsOf('parser')).toEqual(['--single-threaded-gc', '--no-allocation-site-pretenuring', '--max-semi-space-size=64']);
    for (const pool of pools) {
      const command = JSON.stringify(['node', ...nodeFlagsOf(pool), 'dist/main.js', '--role', pool]).replaceAll(',', ', ');
      expect(serviceBlock(pool), `service ${pool}`).toContain(`command: ${command}`);
      expect(readFileSync(join(REPO_ROOT, 'infra', 'kubernetes', `${pool}.yaml`), 'utf8'), pool).toContain(`args: ${command}`);
    }
    const flags = [...new Set(pools.flatMap((p) => nodeFlagsOf(p)))];
    await expect(run(process.execPath, [...flags, '-e', '0'])).resolves.toMatchObject({ stderr: '' });
  });

  it('the image carries what the service reads at run time', () => {
    const dockerfile = readFileSync(join(REPO_ROOT, 'Dockerfile'), 'utf8');
    expect(dockerfile).toContain('COPY --from=build /app/schemas/events ./schemas/events');
    expect(dockerfile).toContain('COPY --from=build /app/infra/clickhouse ./infra/clickhouse');
    expect(dockerfile).toContain('CMD ["node", "dist/main.js"]');
  });

  describe('the image is built and run as the README says', () => {
    const dockerfile = readFileSync(join(REPO_ROOT, 'Dockerfile'), 'utf8');
    const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
    const pkg = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { engines: { node: string }; scripts: Record<string, string> };
    /** Every `RUN` of the Dockerfile, continuation lines joined. */
    const runs = dockerfile
      .replace(/\\\n\s*/g, ' ')
      .split('\n')
      .filter((line) => line.startsWith('RUN '))
      .map((line) => line.slice(4).trim());
    const quickStart = /## Quick start\n+```sh\n(.*?)\s+#/.exec(readme)?.[1] ?? '';
    const [install, start] = quickStart.split(' && ');

    it('installs with the quick start install command', () => {
      expect(install).toBe('npm install');
      expect(runs).toContain(install);
      expect(runs.filter((r) => /\bnpm ci\b/.test(r))).toEqual([]);
    });

    it('has every patch of patches/ in place when npm install runs its postinstall', () => {
      expect(pkg.scripts.postinstall).toBe('patch-package');
      expect(readdirSync(join(REPO_ROOT, 'patches')).length).toBeGreaterThan(0);
      const lines = dockerfile.split('\n');
      const copied = lines.indexOf('COPY patches ./patches');
      expect(copied).toBeGreaterThan(0);
      expect(copied).toBeLessThan(lines.indexOf(`RUN ${install}`));
    });

    it('builds with what the start command builds with, and starts the built files as the start script does', () => {
      expect(start).toBe('npm start');
      expect(pkg.scripts.prestart).toBe('npm run build');
      // tsc, then the files the built modules read beside themselves (infra/build/copy-assets.ts).
      // Incremental, its record inside dist/: a restart rebuilds only what changed (17 s -> 5 s
      // here), and removing dist/ removes the record with the files it vouches for.
      expect(pkg.scripts.build).toBe('tsc -p tsconfig.build.json --incremental --tsBuildInfoFile dist/.tsbuildinfo && node dist/infra/build/copy-assets.js');
      expect(runs.some((r) => r.startsWith('npm run build'))).toBe(true);
      expect(dockerfile).toContain('COPY tsconfig.json tsconfig.build.json');
      const cmd = JSON.parse(/^CMD (\[.*\])$/m.exec(dockerfile)?.[1] ?? '[]') as string[];
      expect(cmd.join(' ')).toBe(pkg.scripts.start);
    });

    it('runs the README\'s key command from the built files', () => {
      const dockerKeys = /^docker compose exec api (npm run keys -- .*)$/m.exec(readme)?.[1] ?? '';
      expect(dockerKeys).toMatch(/^npm run keys -- create /);
      expect(readme).toContain('npm run keys -- create --name alice');
      // The keys script runs a file the build writes (infra/ is in tsconfig.build.json), which
      // the image copies with package.json; its pre-script builds only where there is none.
      const built = /^node (dist\/\S+\.js)$/.exec(pkg.scripts.keys ?? '')?.[1] ?? '';
      expect(built).toBe('dist/infra/cli/keys.js');
      expect(existsSync(join(REPO_ROOT, built.replace(/^dist\//, '').replace(/\.js$/, '.ts')))).toBe(true);
      expect(pkg.scripts.prekeys).toBe(`test -f ${built} || npm run build`);
      expect(dockerfile).toContain('COPY --from=build /app/package.json ./');
      expect(dockerfile).toContain('COPY --from=build /app/dist ./dist');
    });

    it('runs on Node 22, as engines, the README and CI do', () => {
      const froms = [...dockerfile.matchAll(/^FROM (\S+)/gm)].map((m) => m[1]);
      expect(froms).toEqual(['node:22-bookworm-slim', 'node:22-bookworm-slim']);
      expect(pkg.engines.node).toBe('>=22.13');
      expect(readme).toContain('npm install -g --prefix /usr/local node@22');
      expect(readFileSync(join(REPO_ROOT, '.ci/run'), 'utf8')).toContain('npm install -g --prefix /usr/local --no-audit --no-fund node@22');
      if (process.env.CI || process.env.REQUIRE_ENGINES === '1') expect(process.versions.node.split('.')[0]).toBe('22');
    });
  });

  describe.skipIf(!hasCompose)('docker-compose config', () => {
    it('accepts docker-compose.yml', async () => {
      const { stdout } = await run('docker-compose', ['-f', 'docker-compose.yml', 'config', '--services'], { cwd: REPO_ROOT });
      const services = stdout.trim().split('\n');
      expect(services).toEqual(expect.arrayContaining(['kafka', 'schema-registry', 'clickhouse', 'redis', ...ROLES]));
    });
  });
});
