/**
 * The Kubernetes manifests of config/deploy/kubernetes/: every object the kustomization lists validates against the
 * Kubernetes API schemas (kubernetes-models, generated from the Kubernetes OpenAPI specification, plus the
 * Prometheus Operator's CRD schemas), and the deployment keeps the properties the bot relies on: one
 * replica per wallet group on a ReadWriteOncePod volume, every secret from a Secret, non-root with a
 * read-only root and no capabilities, health probes on the bot's endpoints, a grace period longer than the
 * shutdown timeout, the metrics scraped, and egress only to DNS, the venue and the chain nodes.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { ServiceMonitor } from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/ServiceMonitor';
import { PrometheusRule } from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/PrometheusRule';
import { StatefulSet } from 'kubernetes-models/apps/v1/StatefulSet';
import { Namespace } from 'kubernetes-models/v1/Namespace';
import { Service } from 'kubernetes-models/v1/Service';
import { ServiceAccount } from 'kubernetes-models/v1/ServiceAccount';
import { NetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1/NetworkPolicy';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments, parse as parseYaml } from 'yaml';
import { parseBotConfig, secretRefsOf } from '../../src/core/config/load.ts';

const dir = new URL('../../config/deploy/kubernetes/', import.meta.url);
const read = (name: string) => readFileSync(new URL(name, dir), 'utf8');

type Doc = {
  apiVersion: string;
  kind: string;
  metadata: { name: string; labels?: Record<string, string> };
  spec?: unknown;
} & Record<string, unknown>;

/** The schema model of each kind the manifests use; a kind without one fails the test. */
const MODELS: Record<string, new (data: never) => { validate(): void }> = {
  'v1/Namespace': Namespace,
  'v1/ServiceAccount': ServiceAccount,
  'v1/Service': Service,
  'apps/v1/StatefulSet': StatefulSet,
  'networking.k8s.io/v1/NetworkPolicy': NetworkPolicy,
  'monitoring.coreos.com/v1/ServiceMonitor': ServiceMonitor,
  'monitoring.coreos.com/v1/PrometheusRule': PrometheusRule,
};

const kustomization = parseYaml(read('kustomization.yaml')) as {
  resources: string[];
  namespace: string;
  configMapGenerator: { name: string; files: string[] }[];
};
const docs: Doc[] = kustomization.resources.flatMap((file) =>
  parseAllDocuments(read(file)).map((d) => d.toJSON() as Doc),
);
const one = <T>(kind: string): T & Doc => {
  const found = docs.filter((d) => d.kind === kind);
  expect(found.map((d) => d.kind)).toEqual([kind]);
  return found[0] as T & Doc;
};

function validationError(doc: unknown): string | null {
  const d = doc as Doc;
  const Model = MODELS[`${d.apiVersion}/${d.kind}`];
  if (Model === undefined) return `no schema for ${d.apiVersion} ${d.kind}`;
  try {
    new Model(d as never).validate();
    return null;
  } catch (e) {
    return (e as Error).message;
  }
}

const sts = one<StatefulSet>('StatefulSet');
const pod = sts.spec!.template.spec!;
const container = pod.containers[0]!;
const botConfig = parseBotConfig(read('bot.yaml'), 'config/deploy/kubernetes/bot.yaml');

describe('Kubernetes manifests', () => {
  it('validate against the Kubernetes API schemas, every object the kustomization lists', () => {
    expect(docs.length).toBe(kustomization.resources.length);
    expect(docs.map((d) => ({ kind: d.kind, error: validationError(d) }))).toEqual(
      docs.map((d) => ({ kind: d.kind, error: null })),
    );
  });

  it('the validation refuses what the API server would refuse', () => {
    const broken = structuredClone(sts) as unknown as {
      spec: { replicas: unknown; volumeClaimTemplates: { spec: { accessModes: unknown } }[] };
    };
    broken.spec.replicas = 'one';
    expect(validationError(broken)).toMatch(/replicas must be integer/);
    const monitor = structuredClone(one<ServiceMonitor>('ServiceMonitor')) as unknown as {
      spec: { endpoints: { interval: string }[] };
    };
    (monitor.spec.endpoints[0] as { interval: string }).interval = 'often';
    expect(validationError(monitor)).toMatch(/interval must match pattern/);
  });

  it('run one process per wallet group: one replica, its state on a ReadWriteOncePod volume', () => {
    expect(sts.spec!.replicas).toBe(1);
    expect(
      sts.spec!.volumeClaimTemplates?.map((t) => ({ name: t.metadata?.name, modes: t.spec?.accessModes })),
    ).toEqual([{ name: 'state', modes: ['ReadWriteOncePod'] }]);
    expect(container.volumeMounts?.find((m) => m.name === 'state')?.mountPath).toBe('/app/state');
    expect(botConfig.store.path.startsWith('/app/state/')).toBe(true);
  });

  it('take every secret of the bot configuration from a Secret, and write none inline', () => {
    const refs = secretRefsOf(botConfig).map((r) => r.ref);
    expect(refs.every((r) => 'env' in r)).toBe(true);
    const fromSecrets = new Map(
      (container.env ?? [])
        .filter((e) => e.valueFrom?.secretKeyRef !== undefined)
        .map((e) => [e.name, e.valueFrom?.secretKeyRef?.name]),
    );
    expect(refs.map((r) => ('env' in r ? r.env : '')).toSorted()).toEqual([...fromSecrets.keys()].toSorted());
    expect(new Set(fromSecrets.values())).toEqual(new Set(['dlt-mm-secrets']));
    expect((container.env ?? []).filter((e) => e.value !== undefined)).toEqual([]);
  });

  it('run as a non-root user with a read-only root file system and no capabilities', () => {
    expect(pod.securityContext).toMatchObject({
      runAsNonRoot: true,
      runAsUser: 1000,
      seccompProfile: { type: 'RuntimeDefault' },
    });
    expect(container.securityContext).toMatchObject({
      readOnlyRootFilesystem: true,
      allowPrivilegeEscalation: false,
      privileged: false,
      capabilities: { drop: ['ALL'] },
    });
    expect(container.securityContext?.capabilities?.add).toBeUndefined();
    expect(pod.automountServiceAccountToken).toBe(false);
    expect(container.volumeMounts?.find((m) => m.name === 'config')).toMatchObject({
      mountPath: '/etc/dlt-mm',
      readOnly: true,
    });
  });

  it("probe liveness on /healthz and readiness on /readyz of the bot's telemetry port", () => {
    const port = container.ports?.find((p) => p.name === 'metrics');
    expect(port?.containerPort).toBe(botConfig.telemetry.metricsPort);
    expect(container.livenessProbe?.httpGet).toMatchObject({ path: '/healthz', port: 'metrics' });
    expect(container.readinessProbe?.httpGet).toMatchObject({ path: '/readyz', port: 'metrics' });
    expect(container.args).toEqual(['run', '--config', '/etc/dlt-mm/bot.yaml']);
  });

  it('give the bot longer to stop than its own shutdown timeout', () => {
    expect(pod.terminationGracePeriodSeconds! * 1000).toBeGreaterThan(botConfig.engine.shutdownTimeoutMs + 10_000);
  });

  it('publish the metrics port through a Service that a ServiceMonitor scrapes, ready or not', () => {
    const labels = sts.spec!.template.metadata!.labels!;
    const service = one<Service>('Service');
    expect(service.spec!.selector).toEqual(labels);
    expect(service.spec!.publishNotReadyAddresses).toBe(true);
    expect(service.spec!.ports?.map((p) => p.name)).toEqual(['metrics']);
    expect(sts.spec!.serviceName).toBe(service.metadata.name);
    const monitor = one<ServiceMonitor>('ServiceMonitor');
    expect(
      Object.entries(monitor.spec!.selector.matchLabels ?? {}).every(([k, v]) => service.metadata.labels?.[k] === v),
    ).toBe(true);
    expect(monitor.spec!.endpoints?.map((e) => ({ port: e.port, path: e.path }))).toEqual([
      { port: 'metrics', path: '/metrics' },
    ]);
    // The alert rules select job="dlt-mm": the job label comes from this Service label.
    expect(service.metadata.labels?.[monitor.spec!.jobLabel as string]).toBe('dlt-mm');
  });

  it('let the pod reach only DNS, the venue and the chain nodes, and only Prometheus reach it', () => {
    const policy = one<NetworkPolicy>('NetworkPolicy');
    expect(
      Object.entries(policy.spec!.podSelector!.matchLabels ?? {}).every(
        ([k, v]) => sts.spec!.template.metadata!.labels![k] === v,
      ),
    ).toBe(true);
    expect(policy.spec!.policyTypes).toEqual(['Ingress', 'Egress']);
    const egress = policy.spec!.egress ?? [];
    const dns = egress.filter((r) => r.ports?.every((p) => p.port === 53));
    const https = egress.filter((r) => r.ports?.every((p) => p.port === 443));
    expect(dns).toHaveLength(1);
    // One rule each for the venue and both chain nodes, each to an address block, none open to everything.
    expect(https.map((r) => r.to?.map((t) => t.ipBlock?.cidr))).toHaveLength(3);
    expect(
      egress
        .flatMap((r) => r.to ?? [])
        .some((t) => t.ipBlock?.cidr === '0.0.0.0/0' || (t.ipBlock === undefined && t.namespaceSelector === undefined)),
    ).toBe(false);
    expect(dns.length + https.length).toBe(egress.length);
    expect(policy.spec!.ingress?.flatMap((r) => r.ports?.map((p) => p.port))).toEqual([9464]);
  });

  it('carry the same alert rules as config/deploy/prometheus/', () => {
    const rules = parseYaml(
      readFileSync(new URL('../../config/deploy/prometheus/dlt-mm-alerts.yaml', import.meta.url), 'utf8'),
    ) as unknown;
    expect(one<PrometheusRule>('PrometheusRule').spec).toEqual(rules);
  });

  it('mount a configuration the bot accepts, generated into a ConfigMap', () => {
    expect(kustomization.configMapGenerator).toEqual([{ name: 'dlt-mm-config', files: ['bot.yaml'] }]);
    expect(pod.volumes?.find((v) => v.name === 'config')?.configMap?.name).toBe('dlt-mm-config');
    expect(botConfig.pairs.every((p) => p.strategy.startsWith('/app/strategies/'))).toBe(true);
    for (const p of botConfig.pairs)
      expect(() =>
        readFileSync(fileURLToPath(new URL(`../..${p.strategy.slice('/app'.length)}`, import.meta.url))),
      ).not.toThrow();
  });
});
