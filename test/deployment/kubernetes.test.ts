import { existsSync } from 'node:fs';
import t from 'tap';
import { parseAllDocuments } from 'yaml';
import {
  builtByPnpmBuild,
  documentedStopSeconds,
  entryFile,
  readRepoFile,
  repoRoot,
  schemaVariables,
  semiSpaceMb,
  unknownVariables,
} from './deployment-files.js';

// deploy/kubernetes/, read (no cluster runs here): what `kubectl apply -k` would apply, checked for
// the same things as docker-compose.yml, plus probes, resources and graceful termination.

// biome-ignore lint/suspicious/noExplicitAny: Kubernetes objects are read as plain parsed YAML
type Manifest = any;

const dir = 'deploy/kubernetes/';
const kustomization = parseAllDocuments(readRepoFile(`${dir}kustomization.yaml`))[0]?.toJS() as {
  resources: string[];
  secretGenerator: { name: string; envs: string[] }[];
  images: { name: string }[];
};
const manifests: Manifest[] = kustomization.resources.flatMap((file) =>
  parseAllDocuments(readRepoFile(`${dir}${file}`)).map((document) => document.toJS()),
);
const byKind = (kind: string) => manifests.filter((manifest) => manifest.kind === kind);
const named = (kind: string, name: string) => byKind(kind).find((manifest) => manifest.metadata?.name === name);
const configMap = named('ConfigMap', 'webpush-config');
const secretTemplate = `${dir}${kustomization.secretGenerator[0]?.envs[0]}.example`;
const secretKeys = readRepoFile(secretTemplate)
  .split('\n')
  .filter((line) => /^[A-Z_]+=/.test(line))
  .map((line) => line.split('=')[0] ?? '');

/** Every container of the Deployments and the Job. */
const containers = () =>
  [...byKind('Deployment'), ...byKind('Job')].flatMap((workload) =>
    (workload.spec.template.spec.containers as Manifest[]).map((container) => ({ workload, container })),
  );

/** The variables a container gets: its `env`, and the keys of the ConfigMap and Secret it loads. */
function variablesOf(container: Manifest): Record<string, string> {
  const variables: Record<string, string> = {};
  for (const source of container.envFrom ?? []) {
    if (source.configMapRef) Object.assign(variables, named('ConfigMap', source.configMapRef.name)?.data ?? {});
    if (source.secretRef) for (const key of secretKeys) variables[key] = '(secret)';
  }
  for (const entry of container.env ?? []) variables[entry.name] = entry.value;
  return variables;
}

t.test(
  'kustomization: every resource exists, the Secret comes from a template, secrets.env is not committed',
  async (t) => {
    for (const file of kustomization.resources) t.ok(existsSync(new URL(`${dir}${file}`, repoRoot)), file);
    t.equal(kustomization.secretGenerator[0]?.name, 'webpush-secrets');
    t.ok(existsSync(new URL(secretTemplate, repoRoot)), 'secrets.env.example is the Secret template');
    t.match(readRepoFile('.gitignore'), /deploy\/kubernetes\/secrets\.env/, 'the filled-in secrets stay out of git');
    t.ok(configMap, 'a ConfigMap');
    t.strictSame(
      byKind('Deployment').map((manifest) => manifest.metadata.name),
      ['webpush-api', 'webpush-worker'],
    );
    t.ok(named('Job', 'webpush-migrate'), 'a migrate Job');
    t.ok(named('Service', 'webpush-api'), 'a Service for the API');
    const images = new Set(containers().map(({ container }) => container.image));
    t.strictSame([...images], [kustomization.images[0]?.name], 'one image, set in one place');
  },
);

t.test('every variable is one the config schema knows; secrets only in the Secret', async (t) => {
  t.strictSame(unknownVariables(secretKeys), [], `${secretTemplate}: no unknown variable`);
  t.strictSame(unknownVariables(Object.keys(configMap?.data ?? {})), [], 'ConfigMap: no unknown variable');
  for (const { workload, container } of containers()) {
    const names = (container.env ?? []).map((entry: Manifest) => entry.name);
    t.strictSame(unknownVariables(names), [], `${workload.metadata.name}: no unknown variable`);
    const variables = variablesOf(container);
    for (const required of ['DATABASE_URL', 'REDIS_URL', 'ENCRYPTION_KEY', 'API_KEY_PEPPER', 'PUBLIC_URL'])
      t.ok(required in variables, `${workload.metadata.name} gets ${required}`);
    t.equal(variables.NODE_ENV, 'production');
  }
  for (const secret of ['ENCRYPTION_KEY', 'API_KEY_PEPPER', 'DATABASE_URL', 'OPS_PASSWORD', 'GITHUB_CLIENT_SECRET'])
    t.notOk(secret in (configMap?.data ?? {}), `${secret} is not in the ConfigMap`);
  t.ok(schemaVariables().has('PUBLIC_URL'));
});

t.test('every command runs a file `pnpm build` produces; the worker gets --max-semi-space-size', async (t) => {
  for (const { workload, container } of containers()) {
    const file = entryFile(container.command);
    t.match(builtByPnpmBuild(file), { source: true, built: true }, `${workload.metadata.name}: ${file}`);
  }
  const worker = named('Deployment', 'webpush-worker').spec.template.spec.containers[0];
  t.equal(semiSpaceMb(worker.command), 8);
  t.strictSame(named('Job', 'webpush-migrate').spec.template.spec.containers[0].command, [
    'node',
    'packages/db/dist/migrate-cli.js',
  ]);
});

t.test('probes on /healthz and /readyz of the port each process listens on', async (t) => {
  for (const name of ['webpush-api', 'webpush-worker']) {
    const container = named('Deployment', name).spec.template.spec.containers[0];
    const port = container.ports[0];
    t.equal(String(port.containerPort), variablesOf(container).PORT, `${name} listens on its PORT`);
    t.equal(container.livenessProbe.httpGet.path, '/healthz');
    t.equal(container.readinessProbe.httpGet.path, '/readyz');
    for (const probe of ['livenessProbe', 'readinessProbe', 'startupProbe'])
      t.equal(container[probe].httpGet.port, port.name, `${name} ${probe} on ${port.name}`);
  }
  const worker = named('Deployment', 'webpush-worker').spec.template.spec.containers[0];
  t.equal(variablesOf(worker).WORKER_HOST, '0.0.0.0', 'the worker health server is reachable by the kubelet');
  const service = named('Service', 'webpush-api');
  t.equal(service.spec.ports[0].targetPort, 'http');
  t.strictSame(service.spec.selector, named('Deployment', 'webpush-api').spec.selector.matchLabels);
});

t.test('resources from the measured RSS; termination longer than each drain; non-root', async (t) => {
  const mebibytes = (value: string) => Number(/^(\d+)Mi$/.exec(value)?.[1] ?? Number.NaN);
  const api = named('Deployment', 'webpush-api').spec.template.spec;
  const worker = named('Deployment', 'webpush-worker').spec.template.spec;
  // The measured peak RSS of each process, as docs/deployment.md ("Resources") gives it.
  t.ok(mebibytes(api.containers[0].resources.requests.memory) >= 163 * 0.954, 'API request ≥ its measured RSS');
  t.ok(mebibytes(worker.containers[0].resources.requests.memory) >= 240 * 0.954, 'worker request ≥ its RSS');
  t.ok(mebibytes(worker.containers[0].resources.limits.memory) >= 251 * 0.954 * 1.25, 'worker limit has headroom');
  const stop = documentedStopSeconds();
  t.equal(stop.api.drain, 10, 'the API drains within 10 s (docs/deployment.md)');
  t.equal(stop.worker.drain, 30, 'the worker drains within 30 s (docs/deployment.md)');
  t.equal(api.terminationGracePeriodSeconds, stop.api.grace, 'API grace as documented');
  t.equal(worker.terminationGracePeriodSeconds, stop.worker.grace, 'worker grace as documented');
  t.ok(api.terminationGracePeriodSeconds > stop.api.drain, 'API grace > its shutdown');
  t.ok(worker.terminationGracePeriodSeconds > stop.worker.drain, 'worker grace > its drain');
  for (const { workload } of containers())
    t.match(workload.spec.template.spec.securityContext, { runAsNonRoot: true }, workload.metadata.name);
});

t.test('the worker scales horizontally with an HPA; the API by replicas', async (t) => {
  const hpa = named('HorizontalPodAutoscaler', 'webpush-worker');
  t.equal(hpa.apiVersion, 'autoscaling/v2');
  t.match(hpa.spec.scaleTargetRef, { kind: 'Deployment', name: 'webpush-worker' });
  t.ok(hpa.spec.minReplicas >= 1 && hpa.spec.maxReplicas > hpa.spec.minReplicas);
  t.equal(named('Deployment', 'webpush-worker').spec.replicas, undefined, 'replicas left to the HPA');
  t.ok(named('Deployment', 'webpush-api').spec.replicas >= 2, 'two API replicas');
});

t.test('ops on OPS_PORT with a Service of its own; the public Service serves only the API port', async (t) => {
  const deployment = named('Deployment', 'webpush-api');
  const container = deployment.spec.template.spec.containers[0];
  const variables = variablesOf(container);
  const ops = (container.ports as Manifest[]).find((port) => port.name === 'ops');
  t.ok(variables.OPS_PORT, 'OPS_PORT is set');
  t.equal(String(ops?.containerPort), variables.OPS_PORT, 'the ops container port is OPS_PORT');
  t.equal(variables.OPS_HOST, '0.0.0.0', 'reachable from other pods (the NetworkPolicy decides which)');
  t.not(variables.OPS_PORT, variables.PORT, 'not the public port');
  const publicService = named('Service', 'webpush-api');
  t.strictSame(
    publicService.spec.ports.map((port: Manifest) => port.targetPort),
    ['http'],
    'the public Service reaches only the API port',
  );
  const opsService = named('Service', 'webpush-api-ops');
  t.ok(opsService, 'a Service for the ops port');
  t.equal(opsService.spec.type ?? 'ClusterIP', 'ClusterIP', 'inside the cluster only');
  t.strictSame(
    opsService.spec.ports.map((port: Manifest) => port.targetPort),
    ['ops'],
  );
  t.strictSame(opsService.spec.selector, deployment.spec.selector.matchLabels);
});

t.test('a NetworkPolicy for each workload: ops and health ports only from labelled pods', async (t) => {
  const policies = byKind('NetworkPolicy');
  for (const { workload } of containers()) {
    const labels = workload.spec.template.metadata.labels;
    const policy = policies.find((candidate: Manifest) =>
      Object.entries(candidate.spec.podSelector.matchLabels ?? {}).every(([key, value]) => labels[key] === value),
    );
    t.ok(policy, `${workload.metadata.name} is selected by a NetworkPolicy`);
    t.ok(policy?.spec.policyTypes.includes('Ingress'), `${workload.metadata.name}: ingress is limited`);
  }
  const rulesFor = (name: string, port: string) =>
    (named('NetworkPolicy', name).spec.ingress as Manifest[]).filter((rule) =>
      (rule.ports ?? []).some((entry: Manifest) => entry.port === port),
    );
  t.strictSame(
    rulesFor('webpush-api', 'http').map((rule) => rule.from),
    [undefined],
    'the API port is open to all',
  );
  for (const [name, port] of [
    ['webpush-api', 'ops'],
    ['webpush-worker', 'health'],
  ] as const) {
    const rules = rulesFor(name, port);
    t.ok(rules.length > 0, `${name} ${port}: a rule`);
    for (const rule of rules) {
      t.ok(rule.from?.length > 0, `${name} ${port}: only from named pods`);
      for (const peer of rule.from ?? []) t.ok(peer.podSelector?.matchLabels, `${name} ${port}: a pod selector`);
    }
  }
  const opsPort = named('Deployment', 'webpush-api').spec.template.spec.containers[0].ports.map(
    (port: Manifest) => port.name,
  );
  t.ok(opsPort.includes('ops'));
  t.strictSame(named('NetworkPolicy', 'webpush-migrate').spec.ingress, [], 'the migrate Job takes no connection');
});

t.test('every pod: RuntimeDefault seccomp and no service-account token', async (t) => {
  for (const { workload, container } of containers()) {
    const pod = workload.spec.template.spec;
    t.equal(pod.automountServiceAccountToken, false, `${workload.metadata.name}: no token mounted`);
    t.strictSame(pod.securityContext.seccompProfile, { type: 'RuntimeDefault' }, `${workload.metadata.name}: seccomp`);
    t.match(container.securityContext, { allowPrivilegeEscalation: false, readOnlyRootFilesystem: true });
  }
});
