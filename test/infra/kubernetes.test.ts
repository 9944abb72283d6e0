/**
 * infra/kubernetes/, offline: every YAML document parses and validates against its kind's
 * schema (the Kubernetes API's through kubernetes-models, KEDA's through
 * @kubernetes-models/keda); a kind this test does not know fails, and so does any Secret
 * (secrets are created outside the repository). Then the shape against the code: every role
 * of schemas/topics.ts ROLES has its Deployment running `--role <role>` with resource
 * requests; every pool its KEDA ScaledObject on its consumer group's lag over exactly the
 * topics schemas/topics.ts says it reads, never more processes than partitions; the gateway
 * its Service; the ConfigMap names only settings that exist, and the metrics port the pods
 * declare is the one it sets. The kustomization lists every file.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { ScaledObject } from '@kubernetes-models/keda/keda.sh/v1alpha1';
import { Deployment } from 'kubernetes-models/apps/v1';
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2';
import { ConfigMap, Service } from 'kubernetes-models/v1';
import { nodeFlagsOf, POOL_DEFAULTS } from '../../infra/codegen/deploy-roles.js';
import { poolManifest } from '../../infra/codegen/gen-deploy.js';
import { SETTINGS } from '../../pipeline/service/settings.js';
import { ROLES, TOPICS } from '../../schemas/topics.js';
import { REPO_ROOT } from '../helpers/process.js';

const DIR = join(REPO_ROOT, 'infra/kubernetes');
const KUSTOMIZATION = 'kustomization.yaml';

type Doc = Record<string, any>;

/** The validating model of each kind the manifests may hold, by `apiVersion/kind`. */
const MODELS: Record<string, new (data: any) => { validate(): void }> = {
  'apps/v1/Deployment': Deployment,
  'v1/Service': Service,
  'v1/ConfigMap': ConfigMap,
  'autoscaling/v2/HorizontalPodAutoscaler': HorizontalPodAutoscaler,
  'keda.sh/v1alpha1/ScaledObject': ScaledObject,
};

const files = readdirSync(DIR).filter((f) => f.endsWith('.yaml') || f.endsWith('.yml')).sort();
const manifests = files.filter((f) => f !== KUSTOMIZATION);

function documentsOf(file: string): Doc[] {
  return parseAllDocuments(readFileSync(join(DIR, file), 'utf8')).map((doc) => {
    if (doc.errors.length) throw new Error(`${file}: ${doc.errors.map((e) => e.message).join('; ')}`);
    return doc.toJS() as Doc;
  });
}

const docs = manifests.flatMap((file) => documentsOf(file).map((doc) => ({ file, doc })));
const ofKind = (kind: string) => docs.filter((d) => d.doc.kind === kind).map((d) => d.doc);
const named = (kind: string, name: string) => ofKind(kind).find((d) => d.metadata?.name === name);

/** The pool topics a role reads (the replies topic is each process's requester, not its pool). */
function poolTopics(role: string): string[] {
  return Object.values(TOPICS)
    .filter((t) => (t.consumers as readonly string[]).includes(role) && t.name !== TOPICS.replies.name && t.name !== TOPICS.testPings.name)
    .map((t) => t.name)
    .sort();
}

describe('infra/kubernetes', () => {
  it('a pool without figures of its own (POOL_DEFAULTS) gets manifests that validate, with a trigger per topic it reads', () => {
    for (const role of ROLES.filter((r) => r !== 'gateway')) {
      const docs = parseAllDocuments(poolManifest(role as Exclude<typeof role, 'gateway'>, POOL_DEFAULTS)).map((d) => d.toJS() as Doc);
      expect(docs.map((d) => d.kind)).toEqual(['Deployment', 'ScaledObject']);
      expect(() => new Deployment(docs[0] as ConstructorParameters<typeof Deployment>[0]).validate()).not.toThrow();
      expect(() => new ScaledObject(docs[1] as ConstructorParameters<typeof ScaledObject>[0]).validate()).not.toThrow();
      const triggers = (docs[1] as { spec: { triggers: { metadata: { topic: string } }[] } }).spec.triggers;
      expect(triggers.map((t) => t.metadata.topic).sort()).toEqual(poolTopics(role).sort());
    }
  });

  it('every document validates against its kind\'s schema, and no kind is unknown', () => {
    expect(docs.length).toBeGreaterThan(ROLES.length * 2);
    for (const { file, doc } of docs) {
      const key = `${doc.apiVersion}/${doc.kind}`;
      const Model = MODELS[key];
      expect(Model, `${file}: ${key} is not a kind this test validates`).toBeDefined();
      expect(() => new (Model as NonNullable<typeof Model>)(doc).validate(), `${file}: ${key} ${doc.metadata?.name}`).not.toThrow();
    }
  });

  it('a broken document fails its validation (the validator is not a formality)', () => {
    const deployment = structuredClone(named('Deployment', 'wds-fetcher')) as Doc;
    deployment.spec.template.spec.containers[0].resources.requests.cpu = 'half a core';
    expect(() => new Deployment(deployment).validate()).toThrow(/cpu/);
    const scaled = structuredClone(named('ScaledObject', 'wds-fetcher')) as Doc;
    delete scaled.spec.scaleTargetRef;
    expect(() => new ScaledObject(scaled as ConstructorParameters<typeof ScaledObject>[0]).validate()).toThrow(/scaleTargetRef/);
  });

  it('holds no Secret: secrets are created outside the repository', () => {
    expect(ofKind('Secret')).toEqual([]);
    for (const deployment of ofKind('Deployment')) {
      const from = deployment.spec.template.spec.containers[0].envFrom as Doc[];
      expect(from.map((f) => f.secretRef?.name).filter(Boolean), deployment.metadata.name).toEqual(['wds-secrets']);
      expect(from.map((f) => f.configMapRef?.name).filter(Boolean), deployment.metadata.name).toEqual(['wds-config']);
    }
  });

  it('every role has a Deployment running it, with CPU and memory requests', () => {
    for (const role of ROLES) {
      const deployment = named('Deployment', `wds-${role}`);
      expect(deployment, `Deployment wds-${role}`).toBeDefined();
      const [container, ...others] = deployment?.spec.template.spec.containers as Doc[];
      expect(others).toEqual([]);
      expect((container?.args as string[]).join(' '), role).toBe(['node', ...nodeFlagsOf(role), 'dist/main.js', '--role', role].join(' '));
      expect(container?.resources.requests, role).toEqual({ cpu: expect.anything(), memory: expect.anything() });
      expect(container?.resources.limits.memory, role).toBeDefined();
    }
    expect(ofKind('Deployment')).toHaveLength(ROLES.length);
  });

  it('every pool scales on its consumer group\'s lag over the topics it reads, up to its partitions', () => {
    for (const role of ROLES.filter((r) => r !== 'gateway')) {
      const scaled = named('ScaledObject', `wds-${role}`);
      expect(scaled, `ScaledObject wds-${role}`).toBeDefined();
      expect(scaled?.spec.scaleTargetRef.name).toBe(`wds-${role}`);
      const triggers = scaled?.spec.triggers as Doc[];
      expect(triggers.every((t) => t.type === 'kafka' && t.metadata.consumerGroup === role), role).toBe(true);
      expect(triggers.map((t) => t.metadata.topic as string).sort(), role).toEqual(poolTopics(role));
      const partitions = Math.min(...Object.values(TOPICS).filter((t) => poolTopics(role).includes(t.name)).map((t) => t.partitions));
      expect(scaled?.spec.maxReplicaCount, role).toBeLessThanOrEqual(partitions);
      expect(scaled?.spec.minReplicaCount, role).toBeGreaterThanOrEqual(1);
    }
    expect(ofKind('ScaledObject')).toHaveLength(ROLES.length - 1);
  });

  it('the gateway is behind a Service on its HTTP port, and ready when /healthz answers', () => {
    const deployment = named('Deployment', 'wds-gateway') as Doc;
    const service = named('Service', 'wds-gateway') as Doc;
    expect(service.spec.selector).toEqual(deployment.spec.template.metadata.labels);
    const container = deployment.spec.template.spec.containers[0] as Doc;
    const http = (container.ports as Doc[]).find((p) => p.name === 'http');
    expect(http?.containerPort).toBe(SETTINGS.port.default);
    expect(service.spec.ports[0].targetPort).toBe('http');
    expect(container.readinessProbe.httpGet.path).toBe('/healthz');
  });

  it('the ConfigMap names only settings that exist, and its metrics port is the one every pod declares', () => {
    const config = named('ConfigMap', 'wds-config') as Doc;
    const known = new Set<string>(Object.values(SETTINGS).map((s) => s.env));
    for (const name of Object.keys(config.data)) expect(known.has(name), `${name} is not a setting`).toBe(true);
    expect(config.data.BUS).toBe('kafka');
    const port = Number(config.data.METRICS_PORT);
    for (const deployment of ofKind('Deployment')) {
      const ports = deployment.spec.template.spec.containers[0].ports as Doc[];
      expect(ports.find((p) => p.name === 'metrics')?.containerPort, deployment.metadata.name).toBe(port);
      expect(deployment.spec.template.metadata.annotations['prometheus.io/port'], deployment.metadata.name).toBe(String(port));
    }
  });

  it('the kustomization lists every manifest', () => {
    const [kustomization] = documentsOf(KUSTOMIZATION);
    expect(kustomization?.kind).toBe('Kustomization');
    expect([...(kustomization?.resources as string[])].sort()).toEqual(manifests);
  });
});
