/**
 * The Kubernetes manifests (deploy/k8s), checked offline: no cluster runs in CI. Every object must
 * pass the Kubernetes schema (kubernetes-models) and use only field names the API knows, and the
 * objects must fit together and fit Ward: selectors and ports, probes on /health, termination
 * longer than the backend's drain, only settings Ward reads, the images Compose builds, and a
 * kustomization that lists exactly the files beside it.
 */
import test from 'ava';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse, parseAllDocuments } from 'yaml';
import { Deployment, type IDeployment } from 'kubernetes-models/apps/v1/Deployment';
import { ConfigMap, type IConfigMap } from 'kubernetes-models/v1/ConfigMap';
import type { IContainer } from 'kubernetes-models/v1/Container';
import {
  PersistentVolumeClaim,
  type IPersistentVolumeClaim,
} from 'kubernetes-models/v1/PersistentVolumeClaim';
import type { IPodSpec } from 'kubernetes-models/v1/PodSpec';
import type { IProbe } from 'kubernetes-models/v1/Probe';
import { Secret } from 'kubernetes-models/v1/Secret';
import { Service, type IService } from 'kubernetes-models/v1/Service';
import { Ingress, type IIngress } from 'kubernetes-models/networking.k8s.io/v1/Ingress';
import {
  PodDisruptionBudget,
  type IPodDisruptionBudget,
} from 'kubernetes-models/policy/v1/PodDisruptionBudget';
import { metricsSettings } from '../../src/config/backend-settings.ts';
import { SETTINGS } from '../../src/config/settings.ts';
import { METRICS_PATH } from '../../src/server/metrics-endpoint.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const K8S = path.join(ROOT, 'deploy', 'k8s');
const COMPOSE = path.join(ROOT, 'deploy', 'docker-compose.yml');
const BACKEND = 'ward-backend';
const FRONTEND = 'ward-frontend';
/** The variables the frontend image reads (deploy/frontend/entrypoint.sh): where nginx proxies the API, and whose X-Forwarded-For it believes. */
const FRONTEND_ENV = new Set(['BACKEND_UPSTREAM', 'BACKEND_RESOLVER', 'TRUSTED_PROXIES']);
const WARD_SETTINGS = new Set(SETTINGS.map((setting) => setting.name));

interface Manifest {
  apiVersion: string;
  kind: string;
  metadata: { name: string; labels?: Record<string, string> };
  [field: string]: unknown;
}

interface Loaded {
  file: string;
  object: Manifest;
}

interface Kustomization {
  apiVersion?: string;
  kind?: string;
  resources?: string[];
  secretGenerator?: Generator[];
  configMapGenerator?: Generator[];
}

interface Generator {
  name: string;
  envs?: string[];
  files?: string[];
  literals?: string[];
}

type Model = new (data: never) => { validate(): void };

const MODELS: Record<string, Model> = {
  'apps/v1 Deployment': Deployment,
  'v1 ConfigMap': ConfigMap,
  'v1 PersistentVolumeClaim': PersistentVolumeClaim,
  'v1 Secret': Secret,
  'v1 Service': Service,
  'networking.k8s.io/v1 Ingress': Ingress,
  'policy/v1 PodDisruptionBudget': PodDisruptionBudget,
};

const files = readdirSync(K8S).sort();
const kustomization = parse(readFileSync(path.join(K8S, 'kustomization.yaml'), 'utf8')) as Kustomization;
const parseErrors: string[] = [];
const loaded: Loaded[] = files
  .filter((file) => /\.ya?ml$/.test(file) && file !== 'kustomization.yaml')
  .flatMap((file) =>
    parseAllDocuments(readFileSync(path.join(K8S, file), 'utf8')).flatMap((document) => {
      for (const error of [...document.errors, ...document.warnings])
        parseErrors.push(`${file}: ${error.message}`);
      const object = document.toJS() as Manifest | null;
      return object === null ? [] : [{ file, object }];
    }),
  );
/** The Secrets the kustomization generates from env files, as the cluster will get them. */
const generatedSecrets: Loaded[] = (kustomization.secretGenerator ?? []).map((generator) => ({
  file: 'kustomization.yaml',
  object: {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: generator.name },
    type: 'Opaque',
    stringData: Object.fromEntries((generator.envs ?? []).flatMap((file) => readEnvFile(file))),
  },
}));

const ofKind = <T>(kind: string): T[] =>
  loaded.filter(({ object }) => object.kind === kind).map(({ object }) => object as unknown as T);
const deployments = ofKind<IDeployment>('Deployment');
const services = ofKind<IService>('Service');
const deployment = (name: string): IDeployment => {
  const found = deployments.find((candidate) => candidate.metadata?.name === name);
  if (found === undefined) throw new Error(`deploy/k8s has no Deployment ${name}`);
  return found;
};
const podSpec = (name: string): IPodSpec => deployment(name).spec!.template.spec!;
const container = (name: string): IContainer => {
  const containers = podSpec(name).containers;
  if (containers.length !== 1) throw new Error(`${name} should run one container, not ${containers.length}`);
  return containers[0]!;
};

/** `KEY=VALUE` lines as kustomize reads an env file: `#` comments and blank lines skipped. */
function readEnvFile(file: string): Array<[string, string]> {
  return readFileSync(path.join(K8S, file), 'utf8')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => {
      const equals = line.indexOf('=');
      return equals < 0 ? [line, ''] : [line.slice(0, equals), line.slice(equals + 1)];
    });
}

/** Whether `selector` (a label map) picks pods with `labels`: every pair present. */
const selects = (selector: Record<string, string> | undefined, labels: Record<string, string> | undefined) =>
  selector !== undefined &&
  Object.keys(selector).length > 0 &&
  Object.entries(selector).every(([key, value]) => labels?.[key] === value);

/** The Deployments whose pods `selector` picks. */
const selected = (selector: Record<string, string> | undefined): IDeployment[] =>
  deployments.filter((candidate) => selects(selector, candidate.spec!.template.metadata?.labels));

/** The container port a probe or Service port names (by name or number); undefined if it declares none. */
function containerPort(of: IContainer, port: number | string | undefined): number | undefined {
  const ports = of.ports ?? [];
  const found = ports.find((candidate) =>
    typeof port === 'number' ? candidate.containerPort === port : candidate.name === port,
  );
  return found?.containerPort;
}

/** The repository part of an image reference: no tag, no digest (`ward-backend:${WARD_TAG:-latest}` → `ward-backend`). */
function repository(image: string): string {
  const name = image.split('@')[0]!;
  const colon = name.indexOf(':', name.lastIndexOf('/') + 1);
  return colon < 0 ? name : name.slice(0, colon);
}

/** Every property name the Kubernetes object types declare (core and apimachinery). */
function knownFieldNames(): Set<string> {
  const names = new Set<string>();
  for (const dir of ['node_modules/kubernetes-models', 'node_modules/@kubernetes-models/apimachinery'])
    for (const file of readdirSync(path.join(ROOT, dir), { recursive: true, encoding: 'utf8' }))
      if (file.endsWith('.d.ts'))
        for (const match of readFileSync(path.join(ROOT, dir, file), 'utf8').matchAll(/^\s+"([^"]+)"\??:/gm))
          names.add(match[1]!);
  return names;
}

/** Maps whose keys are free (labels, ConfigMap data, resource names): their keys are not fields. */
const FREE_FORM = new Set([
  'labels',
  'annotations',
  'matchLabels',
  'nodeSelector',
  'data',
  'stringData',
  'limits',
  'requests',
]);

function unknownFields(value: unknown, where: string, known: Set<string>, found: string[]): void {
  if (Array.isArray(value))
    value.forEach((item, index) => unknownFields(item, `${where}[${index}]`, known, found));
  else if (value !== null && typeof value === 'object')
    for (const [key, child] of Object.entries(value)) {
      const at = `${where}.${key}`;
      if (!known.has(key)) found.push(at);
      // A Service's selector is a label map, not a LabelSelector.
      const freeForm = FREE_FORM.has(key) || /: Service\.spec\.selector$/.test(at);
      if (!freeForm) unknownFields(child, at, known, found);
    }
}

test('every file parses as YAML, each document one Kubernetes object with a kind and a unique name', (t) => {
  t.deepEqual(parseErrors, []);
  t.is(kustomization.apiVersion, 'kustomize.config.k8s.io/v1beta1');
  t.is(kustomization.kind, 'Kustomization');
  t.true(loaded.length > 0);
  const seen = new Set<string>();
  for (const { file, object } of loaded) {
    t.truthy(object.apiVersion, `${file}: apiVersion`);
    t.truthy(object.kind, `${file}: kind`);
    t.truthy(object.metadata?.name, `${file}: metadata.name`);
    const id = `${object.kind}/${object.metadata.name}`;
    t.false(seen.has(id), `${file}: ${id} is defined twice`);
    seen.add(id);
  }
});

test('every object, the generated Secret included, passes the Kubernetes schema', (t) => {
  for (const { file, object } of [...loaded, ...generatedSecrets]) {
    const model = MODELS[`${object.apiVersion} ${object.kind}`];
    if (model === undefined) {
      t.fail(`${file}: no schema for ${object.apiVersion} ${object.kind}; add its kubernetes-models class`);
      continue;
    }
    t.notThrows(
      () => new model(object as never).validate(),
      `${file}: ${object.kind} ${object.metadata.name}`,
    );
  }
});

test('every field name is one the Kubernetes API declares (kubectl apply refuses unknown fields)', (t) => {
  const known = knownFieldNames();
  const unknown: string[] = [];
  for (const { file, object } of loaded) unknownFields(object, `${file}: ${object.kind}`, known, unknown);
  t.deepEqual(unknown, []);
});

test('kustomization.yaml lists every file beside it, and every file it lists exists', (t) => {
  const listed = [
    ...(kustomization.resources ?? []),
    ...[...(kustomization.secretGenerator ?? []), ...(kustomization.configMapGenerator ?? [])].flatMap(
      (generator) => [...(generator.envs ?? []), ...(generator.files ?? [])],
    ),
  ];
  t.deepEqual(
    [...listed].sort(),
    files.filter((file) => file !== 'kustomization.yaml'),
  );
  t.is(new Set(listed).size, listed.length, 'a file is listed twice');
});

test('each Deployment selects its own pods; Services, disruption budgets and spread constraints select one Deployment', (t) => {
  t.deepEqual(deployments.map((candidate) => candidate.metadata!.name).sort(), [BACKEND, FRONTEND]);
  for (const candidate of deployments) {
    const { selector, template } = candidate.spec!;
    t.is(selector.matchExpressions, undefined, `${candidate.metadata!.name}: matchLabels only`);
    t.true(selects(selector.matchLabels, template.metadata?.labels), `${candidate.metadata!.name}: selector`);
    for (const constraint of template.spec!.topologySpreadConstraints ?? [])
      t.true(
        selects(constraint.labelSelector?.matchLabels, template.metadata?.labels),
        `${candidate.metadata!.name}: topologySpreadConstraints select its own pods`,
      );
  }
  for (const service of services)
    t.is(
      selected(service.spec!.selector).length,
      1,
      `Service ${service.metadata!.name} selects one Deployment`,
    );
  const budgets = ofKind<IPodDisruptionBudget>('PodDisruptionBudget');
  t.deepEqual(
    budgets.map((budget) => selected(budget.spec!.selector!.matchLabels)[0]?.metadata!.name).sort(),
    [BACKEND, FRONTEND],
  );
  for (const budget of budgets) {
    const replicas = selected(budget.spec!.selector!.matchLabels)[0]!.spec!.replicas ?? 1;
    const { maxUnavailable, minAvailable } = budget.spec!;
    t.true(
      (typeof maxUnavailable === 'number' && maxUnavailable >= 1) ||
        (typeof minAvailable === 'number' && minAvailable < replicas),
      `PodDisruptionBudget ${budget.metadata!.name} lets a node drain proceed`,
    );
  }
  t.true((deployment(BACKEND).spec!.replicas ?? 1) > 1, 'several backend replicas');
});

test('every Service targets a port its pods declare, and the Ingress routes to the frontend Service', (t) => {
  for (const service of services) {
    const [target] = selected(service.spec!.selector);
    for (const port of service.spec!.ports ?? [])
      t.truthy(
        containerPort(container(target!.metadata!.name!), port.targetPort ?? port.port),
        `Service ${service.metadata!.name} port ${port.name ?? port.port}: targetPort ${port.targetPort}`,
      );
  }
  const ingresses = ofKind<IIngress>('Ingress');
  t.is(ingresses.length, 1);
  const frontendService = services.find(
    (service) => selected(service.spec!.selector)[0] === deployment(FRONTEND),
  );
  t.truthy(frontendService, 'a Service selects the frontend');
  const backends = ingresses.flatMap((ingress) => [
    ...(ingress.spec!.defaultBackend === undefined ? [] : [ingress.spec!.defaultBackend]),
    ...(ingress.spec!.rules ?? []).flatMap((rule) => rule.http?.paths.map((route) => route.backend) ?? []),
  ]);
  t.true(backends.length > 0);
  for (const backend of backends) {
    t.is(backend.service?.name, frontendService!.metadata!.name);
    const port = backend.service!.port!;
    t.true(
      (frontendService!.spec!.ports ?? []).some((candidate) =>
        port.name === undefined ? candidate.port === port.number : candidate.name === port.name,
      ),
      `the Ingress names port ${port.name ?? port.number} of ${frontendService!.metadata!.name}`,
    );
  }
});

test('the backend probes /health on its own port; the start may take minutes, liveness is patient', (t) => {
  const backend = container(BACKEND);
  const probes: Record<string, IProbe | undefined> = {
    startupProbe: backend.startupProbe,
    readinessProbe: backend.readinessProbe,
    livenessProbe: backend.livenessProbe,
  };
  for (const [kind, probe] of Object.entries(probes)) {
    t.is(probe?.httpGet?.path, '/health', `backend ${kind}`);
    t.truthy(containerPort(backend, probe?.httpGet?.port), `backend ${kind} port`);
  }
  // The backend listens only once the pending plan is applied, which can take minutes.
  const patience = (probe: IProbe | undefined) =>
    (probe?.periodSeconds ?? 10) * (probe?.failureThreshold ?? 3);
  t.true(patience(probes.startupProbe) >= 600, 'the startup probe allows at least 10 minutes');
  t.true(patience(probes.livenessProbe) >= 60, 'liveness allows at least a minute of failed checks');
  t.true(
    (deployment(BACKEND).spec!.progressDeadlineSeconds ?? 600) >= patience(probes.startupProbe),
    'the rollout waits as long as the startup probe',
  );
  // nginx's own answer: the shell keeps being served while the backends restart.
  const frontend = container(FRONTEND);
  for (const probe of [frontend.readinessProbe, frontend.livenessProbe]) {
    t.is(probe?.httpGet?.path, '/nginx-health');
    t.truthy(containerPort(frontend, probe?.httpGet?.port));
  }
});

test("termination outlasts the preStop pause plus the backend's drain grace; an exited backend restarts in place", (t) => {
  // DEFAULT_GRACE_MS is not exported: read it where the backend's graceful close declares it.
  const source = readFileSync(path.join(ROOT, 'src/server/server.ts'), 'utf8');
  const declared = /const DEFAULT_GRACE_MS = ([\d_]+);/.exec(source);
  if (declared === null)
    return t.fail("src/server/server.ts no longer declares DEFAULT_GRACE_MS: find the backend's drain grace");
  const graceSeconds = Number(declared[1]!.replaceAll('_', '')) / 1000;
  for (const [name, drain] of [
    [BACKEND, graceSeconds],
    [FRONTEND, 0],
  ] as const) {
    const spec = podSpec(name);
    const pause = container(name).lifecycle?.preStop?.sleep?.seconds;
    t.true(typeof pause === 'number' && pause > 0, `${name}: a preStop pause lets the endpoints update`);
    t.true(
      (spec.terminationGracePeriodSeconds ?? 30) > (pause ?? 0) + drain,
      `${name}: terminationGracePeriodSeconds ${spec.terminationGracePeriodSeconds} > ${pause} + ${drain}`,
    );
    t.is(spec.restartPolicy ?? 'Always', 'Always', `${name}: an exit is followed by a restart`);
  }
  // Every restart channel stops all backends before new ones apply the plan; a rollout does too.
  t.is(deployment(BACKEND).spec!.strategy?.type, 'Recreate');
});

test('every variable set on the backend is a Ward setting; secrets come from the Secret only', (t) => {
  const backend = container(BACKEND);
  const configMaps = ofKind<IConfigMap>('ConfigMap');
  const names: string[] = (backend.env ?? []).map((variable) => variable.name);
  const settings: Record<string, string> = {};
  for (const source of backend.envFrom ?? []) {
    if (source.configMapRef !== undefined) {
      const map = configMaps.find((candidate) => candidate.metadata!.name === source.configMapRef!.name);
      if (map === undefined) return t.fail(`no ConfigMap ${source.configMapRef.name}`);
      for (const key of Object.keys(map.data ?? {}))
        t.false(/PASSWORD|SECRET|KEY|DATABASE_URL/.test(key), key);
      Object.assign(settings, map.data);
      names.push(...Object.keys(map.data ?? {}));
    }
    if (source.secretRef !== undefined) {
      const secret = generatedSecrets.find(({ object }) => object.metadata.name === source.secretRef!.name);
      if (secret === undefined) return t.fail(`no Secret ${source.secretRef.name}`);
      names.push(...Object.keys(secret.object.stringData as Record<string, string>));
    }
  }
  t.deepEqual(
    names.filter((name) => !WARD_SETTINGS.has(name)),
    [],
  );
  t.false(podSpec(BACKEND).enableServiceLinks ?? true, 'no Service link variables in the environment');
  t.true(names.includes('DATABASE_URL'), 'PostgreSQL is external: DATABASE_URL is set');
  // The default HOST is 127.0.0.1, which neither probes nor the Service could reach.
  t.true(['0.0.0.0', '::'].includes(settings.HOST ?? ''), `HOST=${settings.HOST}`);
  t.is<number | undefined, number | undefined>(Number(settings.PORT), containerPort(backend, 'http'));
  t.is(settings.WARD_TRUST_PROXY, '1');
  const frontend = container(FRONTEND);
  t.deepEqual(
    (frontend.env ?? []).map((variable) => variable.name).filter((name) => !FRONTEND_ENV.has(name)),
    [],
  );
  t.is(frontend.envFrom, undefined);
  const backendService = services.find(
    (service) => selected(service.spec!.selector)[0] === deployment(BACKEND),
  )!;
  t.is(
    frontend.env?.find((variable) => variable.name === 'BACKEND_UPSTREAM')?.value,
    `${backendService.metadata!.name}:${backendService.spec!.ports![0]!.port}`,
  );
});

test('Prometheus scrapes each backend pod at the metrics port the ConfigMap sets; no Service leads there', (t) => {
  const backend = container(BACKEND);
  const settings = ofKind<IConfigMap>('ConfigMap').find((map) => map.metadata!.name === BACKEND)!.data!;
  // The settings as the backend parses them: a value it would refuse fails here.
  const metrics = metricsSettings(
    { port: settings.WARD_METRICS_PORT ?? null, host: settings.WARD_METRICS_HOST ?? null, token: null },
    Number(settings.PORT),
  );
  if (metrics === null) return t.fail('the ConfigMap turns metrics off');
  t.is<number | undefined, number | undefined>(containerPort(backend, 'metrics'), metrics.port);
  // The default, 127.0.0.1, is out of Prometheus's reach.
  t.true(['0.0.0.0', '::'].includes(metrics.host), `WARD_METRICS_HOST=${metrics.host}`);
  const annotations = deployment(BACKEND).spec!.template.metadata!.annotations ?? {};
  t.deepEqual(
    {
      scrape: annotations['prometheus.io/scrape'],
      port: Number(annotations['prometheus.io/port']),
      path: annotations['prometheus.io/path'],
    },
    { scrape: 'true', port: metrics.port, path: METRICS_PATH },
  );
  // What a Service exposes the frontend and the Ingress can reach: never the metrics.
  for (const service of services) {
    const [target] = selected(service.spec!.selector);
    for (const port of service.spec!.ports ?? [])
      t.not(
        containerPort(container(target!.metadata!.name!), port.targetPort ?? port.port),
        metrics.port,
        `Service ${service.metadata!.name} port ${port.name ?? port.port}`,
      );
  }
});

test('secret.env holds placeholders only, and the database host never resolves', (t) => {
  for (const generator of kustomization.secretGenerator ?? []) {
    t.deepEqual(generator.literals, undefined, 'secrets come from an env file');
    for (const file of generator.envs ?? [])
      for (const [name, value] of readEnvFile(file)) {
        t.true(WARD_SETTINGS.has(name), `${file}: ${name} is a Ward setting`);
        t.true(value.includes('CHANGE-ME'), `${file}: ${name} is a marked placeholder`);
        if (name === 'DATABASE_URL') t.regex(new URL(value).hostname, /\.invalid$/);
      }
  }
});

test('storage: one ReadWriteMany claim at WARD_STORAGE_DIR for every backend; the rest of the root is read-only', (t) => {
  const claims = ofKind<IPersistentVolumeClaim>('PersistentVolumeClaim');
  t.is(claims.length, 1);
  t.deepEqual(claims[0]!.spec!.accessModes, ['ReadWriteMany']);
  const configMap = ofKind<IConfigMap>('ConfigMap').find((map) => map.metadata!.name === BACKEND)!;
  const storageDir = configMap.data!.WARD_STORAGE_DIR!;
  const backendSpec = podSpec(BACKEND);
  const storage = backendSpec.volumes?.find(
    (volume) => volume.persistentVolumeClaim?.claimName === claims[0]!.metadata!.name,
  );
  t.truthy(storage, 'the backend mounts the claim');
  const mounts = container(BACKEND).volumeMounts ?? [];
  t.is(mounts.find((mount) => mount.name === storage?.name)?.mountPath, storageDir);
  // Everything Ward writes that another replica must read is under the shared folder.
  for (const name of ['WARD_PACKAGE_ROOT', 'WARD_FRONTEND_DIR'])
    t.true(configMap.data![name]!.startsWith(`${storageDir}/`), `${name} is on the storage volume`);
  for (const name of [BACKEND, FRONTEND]) {
    const spec = podSpec(name);
    const own = container(name);
    const volumes = (spec.volumes ?? []).map((volume) => volume.name).sort();
    t.deepEqual(
      (own.volumeMounts ?? []).map((mount) => mount.name).sort(),
      volumes,
      `${name}: every volume mounted once`,
    );
    t.true(own.securityContext?.readOnlyRootFilesystem, `${name}: read-only root filesystem`);
    const tmp = (own.volumeMounts ?? []).find((mount) => mount.mountPath === '/tmp');
    t.truthy(
      spec.volumes?.find((volume) => volume.name === tmp?.name)?.emptyDir,
      `${name}: /tmp is an emptyDir`,
    );
  }
});

test('every pod runs as its image user, unprivileged, with resource requests and limits', (t) => {
  for (const [name, uid] of [
    [BACKEND, 10001],
    [FRONTEND, 101],
  ] as const) {
    const spec = podSpec(name);
    t.true(spec.securityContext?.runAsNonRoot, `${name}: runAsNonRoot`);
    t.is(spec.securityContext?.runAsUser, uid, `${name}: runAsUser`);
    t.false(spec.automountServiceAccountToken ?? true, `${name}: no service account token`);
    const own = container(name);
    t.false(own.securityContext?.allowPrivilegeEscalation ?? true, `${name}: allowPrivilegeEscalation`);
    t.deepEqual(own.securityContext?.capabilities?.drop, ['ALL'], `${name}: capabilities`);
    for (const bound of ['requests', 'limits'] as const)
      for (const resource of ['cpu', 'memory'])
        t.truthy(own.resources?.[bound]?.[resource], `${name}: resources.${bound}.${resource}`);
  }
});

test('the images are the ones the Compose file builds', (t) => {
  if (!existsSync(COMPOSE)) {
    t.log('deploy/docker-compose.yml does not exist yet: image names not cross-checked');
    return t.pass();
  }
  const compose = parse(readFileSync(COMPOSE, 'utf8')) as { services?: Record<string, { image?: string }> };
  const composeImages = Object.entries(compose.services ?? {}).flatMap(([service, { image }]) =>
    image === undefined ? [] : [{ service, repository: repository(image) }],
  );
  for (const name of [BACKEND, FRONTEND]) {
    const component = deployment(name).spec!.template.metadata!.labels!['app.kubernetes.io/component']!;
    const built = composeImages.find(({ service }) => service === component);
    t.truthy(built, `Compose has a ${component} service with an image`);
    t.is<string | undefined, string | undefined>(
      repository(container(name).image!),
      built?.repository,
      `${name}: image`,
    );
  }
  const deployed = new Set([BACKEND, FRONTEND].map((name) => repository(container(name).image!)));
  for (const { service, repository: built } of composeImages)
    if (built.startsWith('ward-'))
      t.true(deployed.has(built), `Compose's ${service} image ${built} is deployed`);
});
