/**
 * Writes what deploys each actor pool from the roles and topics of schemas/topics.ts and the
 * pools' figures of deploy-roles.ts: a Kubernetes Deployment and KEDA ScaledObject per pool
 * (`infra/kubernetes/<role>.yaml`, one trigger per topic the pool consumes), the kustomization's
 * list of files, and the pools' services in docker-compose.yml (between its two `gen:deploy`
 * marker lines). The gateway's manifest and the shared settings (`gateway.yaml`,
 * `config.yaml`) and the rest of docker-compose.yml are written by hand.
 *
 *   npm run gen:deploy            write the files
 *   npm run gen:deploy -- --check exit 1 when one is stale
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ROLES, TOPICS, type Role } from '../../schemas/topics.js';
import { deployOf, type PoolDeploy } from './deploy-roles.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const KUBERNETES_DIR = join(ROOT, 'infra', 'kubernetes');
export const COMPOSE_FILE = join(ROOT, 'docker-compose.yml');
const COMPOSE_BEGIN = '  # ---- the actor pools: written by npm run gen:deploy (infra/codegen/gen-deploy.ts) ----';
const COMPOSE_END = '  # ---- end of the actor pools ----';

type Pool = Exclude<Role, 'gateway'>;
export const POOLS = ROLES.filter((r): r is Pool => r !== 'gateway');

/** The topics the pool's handlers read (the replies topic is each process's requester, not its pool). */
const topicsOf = (pool: Pool) =>
  Object.values(TOPICS).filter((t) => (t.consumers as readonly Role[]).includes(pool) && t.name !== TOPICS.replies.name && t.name !== TOPICS.testPings.name);
const comment = (lines: readonly string[]) => lines.map((l) => (l ? `# ${l}` : '#')).join('\n');
/** The pool's command line as a YAML flow sequence: node, its flags, the entry and the role. */
const commandOf = (pool: Pool) => `[${['node', ...deployOf(pool).nodeFlags, 'dist/main.js', '--role', pool].map((a) => `"${a}"`).join(', ')}]`;
const labels = (pool: Pool, indent: string) => `${indent}app.kubernetes.io/name: web-data-service\n${indent}app.kubernetes.io/component: ${pool}`;

/** The pool's Deployment and ScaledObject. */
export function poolManifest(pool: Pool, d: PoolDeploy = deployOf(pool)): string {
  const topics = topicsOf(pool);
  const partitions = Math.min(...topics.map((t) => t.partitions));
  const ceiling =
    d.maxReplicas >= partitions
      ? `At most ${partitions} processes: every topic has ${partitions}\npartitions (schemas/topics.ts), and a ${partitions + 1}th member of the group would read nothing.`
      : `At most ${d.maxReplicas} processes (its topics have ${partitions} partitions).`;
  const scaleNote = `Scales wds-${pool} on the lag of its consumer group (${pool}) on each topic it reads, the
largest of the triggers winning: about ${d.lagThreshold} messages waiting per process before one more is
added (a starting point, not a measured figure). ${ceiling}`;
  const triggers = topics
    .map(
      (t) => `    - type: kafka
      metadata:
        bootstrapServers: kafka:9092
        consumerGroup: ${pool}
        topic: ${t.name}
        lagThreshold: "${d.lagThreshold}"
        offsetResetPolicy: earliest`,
    )
    .join('\n');
  return `${comment([`The ${pool} pool: one Deployment, scaled by KEDA on its consumer group's lag.`, '', ...d.note])}
apiVersion: apps/v1
kind: Deployment
metadata:
  name: wds-${pool}
  labels:
${labels(pool, '    ')}
spec:
  replicas: ${d.replicas}
  selector:
    matchLabels:
${labels(pool, '      ')}
  template:
    metadata:
      labels:
${labels(pool, '        ')}
      annotations:
        prometheus.io/scrape: "true"
        prometheus.io/port: "9464"
        prometheus.io/path: /metrics
    spec:
      # A pool stops within the deadline of its running handlers (SIGTERM: stop fetching,
      # finish or hand back what runs, commit, leave the group).
      terminationGracePeriodSeconds: 60
      securityContext:
        runAsNonRoot: true
        runAsUser: 1000
      containers:
        - name: ${pool}
          image: web-data-service:0.1.0
          args: ${commandOf(pool)}
          envFrom:
            - configMapRef:
                name: wds-config
            - secretRef:
                name: wds-secrets
          ports:
            - name: metrics
              containerPort: 9464
          resources:
            requests:
              cpu: ${d.cpu}
              memory: ${d.memory}
            limits:
              memory: ${d.memoryLimit}
---
${comment(scaleNote.split('\n'))}
apiVersion: keda.sh/v1alpha1
kind: ScaledObject
metadata:
  name: wds-${pool}
  labels:
${labels(pool, '    ')}
spec:
  scaleTargetRef:
    name: wds-${pool}
  minReplicaCount: ${d.replicas}
  maxReplicaCount: ${d.maxReplicas}
  pollingInterval: 15
  cooldownPeriod: 300
  triggers:
${triggers}
`;
}

/** The kustomization: the shared settings, the gateway, then every pool. */
export function kustomization(): string {
  return `# The distributed shape on Kubernetes (docs/scaling.md "Kubernetes"): the gateway behind a
# Service, and one Deployment per actor pool, each scaled by a KEDA ScaledObject on its Kafka
# consumer group's lag. Needs KEDA (keda.sh/v1alpha1) in the cluster, the Secret named in
# config.yaml, and Kafka, ClickHouse and Redis reachable at the addresses there.
# \`kubectl apply -k infra/kubernetes/\`. test/infra/kubernetes.test.ts validates every
# document against the Kubernetes and KEDA schemas. Written by npm run gen:deploy.
apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
resources:
  - config.yaml
  - gateway.yaml
${POOLS.map((p) => `  - ${p}.yaml`).join('\n')}
`;
}

/** docker-compose.yml with its pools' services written anew between the markers. */
export function composeWithPools(compose: string): string {
  const begin = compose.indexOf(COMPOSE_BEGIN);
  const end = compose.indexOf(COMPOSE_END);
  if (begin < 0 || end < begin) throw new Error(`${COMPOSE_FILE} lacks the gen:deploy marker lines`);
  const services = POOLS.map(
    (p) => `  ${p}:
    <<: *service
    command: ${commandOf(p)}
    deploy:
      replicas: ${deployOf(p).composeReplicas}
`,
  ).join('\n');
  return `${compose.slice(0, begin)}${COMPOSE_BEGIN}\n${services}${COMPOSE_END}${compose.slice(end + COMPOSE_END.length)}`;
}

/** Every file this writes, with its content now. */
export function deployFiles(): Map<string, string> {
  const files = new Map<string, string>();
  for (const pool of POOLS) files.set(join(KUBERNETES_DIR, `${pool}.yaml`), poolManifest(pool));
  files.set(join(KUBERNETES_DIR, 'kustomization.yaml'), kustomization());
  files.set(COMPOSE_FILE, composeWithPools(readFileSync(COMPOSE_FILE, 'utf8')));
  return files;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const stale: string[] = [];
  for (const [file, want] of deployFiles()) {
    let have = '';
    try {
      have = readFileSync(file, 'utf8');
    } catch {
      have = '';
    }
    if (have === want) continue;
    if (process.argv.includes('--check')) stale.push(file);
    else writeFileSync(file, want);
  }
  if (stale.length) {
    process.stderr.write(`stale: ${stale.join(', ')}: run npm run gen:deploy\n`);
    process.exit(1);
  }
}
