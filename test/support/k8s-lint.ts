/**
 * What `kubectl apply --dry-run=server` would refuse in the Kubernetes example, and the wiring it
 * would accept but that would not work (a selector matching no pod, a probe on a port nobody
 * names, a Secret nobody defines), checked on parsed manifests without a cluster. Returns one line
 * per problem; an empty list is a set of manifests that holds together.
 */
type Doc = Record<string, unknown>;
const isObj = (v: unknown): v is Doc => typeof v === 'object' && v !== null && !Array.isArray(v);
const obj = (v: unknown): Doc => (isObj(v) ? v : {});
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
/** A scalar as text (anything else as empty: it is reported, not stringified). */
const str = (v: unknown): string =>
  typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean' ? String(v) : '';

/** The API version each kind the example uses is served at (stable versions only). */
export const API_VERSIONS: Record<string, string> = {
  Namespace: 'v1',
  ConfigMap: 'v1',
  Secret: 'v1',
  Service: 'v1',
  Deployment: 'apps/v1',
  HorizontalPodAutoscaler: 'autoscaling/v2',
  ServiceMonitor: 'monitoring.coreos.com/v1',
};

const DNS_1123 = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const PORT_NAME = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

export interface Manifest {
  file: string;
  doc: Doc;
}

const key = (m: Manifest) => `${m.file}: ${String(m.doc.kind)} ${String(obj(m.doc.metadata).name)}`;

/** `selector` (matchLabels or a plain map) selects `labels`. */
function selects(selector: unknown, labels: unknown): boolean {
  const want = obj(isObj(obj(selector).matchLabels) ? obj(selector).matchLabels : selector);
  const have = obj(labels);
  return Object.keys(want).length > 0 && Object.entries(want).every(([k, v]) => have[k] === v);
}

function checkProbe(where: string, probe: unknown, portNames: Set<string>): string[] {
  if (probe === undefined) return [];
  const p = obj(probe);
  const handlers = ['exec', 'httpGet', 'tcpSocket', 'grpc'].filter((h) => p[h] !== undefined);
  const out: string[] = [];
  if (handlers.length !== 1) out.push(`${where}: a probe needs exactly one of exec, httpGet, tcpSocket, grpc`);
  const exec = obj(p.exec);
  if (p.exec !== undefined && (!Array.isArray(exec.command) || exec.command.length === 0))
    out.push(`${where}: exec.command must be a non-empty list`);
  const port = obj(p.httpGet ?? p.tcpSocket ?? p.grpc).port;
  if (typeof port === 'string' && !portNames.has(port))
    out.push(`${where}: probe port ${port} is not a container port`);
  for (const f of ['periodSeconds', 'timeoutSeconds', 'failureThreshold', 'initialDelaySeconds']) {
    if (p[f] !== undefined && !(Number.isInteger(p[f]) && (p[f] as number) >= 0))
      out.push(`${where}: ${f} must be a non-negative integer`);
  }
  if (typeof p.timeoutSeconds === 'number' && typeof p.periodSeconds === 'number' && p.timeoutSeconds > p.periodSeconds)
    out.push(`${where}: timeoutSeconds exceeds periodSeconds`);
  return out;
}

function checkDeployment(m: Manifest, all: Manifest[], pinnedImages: ReadonlySet<string>): string[] {
  const out: string[] = [];
  const spec = obj(m.doc.spec);
  const template = obj(spec.template);
  const podLabels = obj(template.metadata).labels;
  if (!selects(spec.selector, podLabels)) out.push(`${key(m)}: selector does not match the pod template's labels`);
  const pod = obj(template.spec);
  const named = (kind: string, name: unknown) =>
    all.some((o) => o.doc.kind === kind && obj(o.doc.metadata).name === name);
  const volumes = new Map(arr(pod.volumes).map((v) => [String(obj(v).name), obj(v)]));
  for (const [name, v] of volumes) {
    const cm = obj(v.configMap);
    if (v.configMap !== undefined) {
      const target = all.find((o) => o.doc.kind === 'ConfigMap' && obj(o.doc.metadata).name === cm.name);
      if (!target) out.push(`${key(m)}: volume ${name} names ConfigMap ${String(cm.name)}, which is not defined`);
      for (const item of arr(cm.items)) {
        if (target && !(String(obj(item).key) in obj(target.doc.data)))
          out.push(
            `${key(m)}: volume ${name} takes key ${String(obj(item).key)}, which ConfigMap ${String(cm.name)} lacks`,
          );
      }
    }
    const secret = obj(v.secret);
    if (v.secret !== undefined && secret.optional !== true && !named('Secret', secret.secretName))
      out.push(`${key(m)}: volume ${name} names Secret ${String(secret.secretName)}, which is not defined`);
  }
  const containers = arr(pod.containers).map(obj);
  if (containers.length === 0) out.push(`${key(m)}: no containers`);
  for (const c of containers) {
    const where = `${key(m)} container ${str(c.name)}`;
    if (!c.name || !DNS_1123.test(str(c.name))) out.push(`${where}: bad or missing name`);
    const image = str(c.image);
    if (!/:[^/]+$/.test(image) || image.endsWith(':latest')) out.push(`${where}: image ${image} has no fixed tag`);
    else if (!pinnedImages.has(image)) out.push(`${where}: image ${image} is not in deploy/image-pins.yaml`);
    const ports = arr(c.ports).map(obj);
    const portNames = new Set(ports.map((p) => String(p.name)));
    for (const p of ports) {
      if (typeof p.name === 'string' && (p.name.length > 15 || !PORT_NAME.test(p.name)))
        out.push(`${where}: port name ${p.name} is not an IANA service name (≤ 15 characters)`);
      if (!Number.isInteger(p.containerPort)) out.push(`${where}: a port without containerPort`);
    }
    const resources = obj(c.resources);
    if (!isObj(resources.requests) || !obj(resources.requests).cpu || !obj(resources.requests).memory)
      out.push(`${where}: resources.requests needs cpu and memory`);
    if (!obj(resources.limits).memory) out.push(`${where}: resources.limits needs memory`);
    for (const probe of ['startupProbe', 'readinessProbe', 'livenessProbe'])
      out.push(...checkProbe(`${where} ${probe}`, c[probe], portNames));
    for (const from of arr(c.envFrom).map(obj)) {
      const ref = obj(from.secretRef ?? from.configMapRef);
      const kind = from.secretRef ? 'Secret' : 'ConfigMap';
      if (ref.optional !== true && !named(kind, ref.name))
        out.push(`${where}: envFrom names ${kind} ${String(ref.name)}, which is not defined`);
    }
    const envNames = arr(c.env).map((e) => String(obj(e).name));
    for (const dup of envNames.filter((n, i) => envNames.indexOf(n) !== i)) out.push(`${where}: env ${dup} set twice`);
    const mountPaths = new Set<string>();
    for (const vm of arr(c.volumeMounts).map(obj)) {
      if (!volumes.has(String(vm.name))) out.push(`${where}: mounts volume ${String(vm.name)}, which the pod lacks`);
      const path = String(vm.mountPath);
      if (mountPaths.has(path)) out.push(`${where}: two mounts at ${path}`);
      // A mount inside a read-only configMap/secret mount cannot create its mount point.
      for (const other of mountPaths)
        if (path.startsWith(`${other}/`)) out.push(`${where}: ${path} is nested in ${other}`);
      mountPaths.add(path);
    }
  }
  return out;
}

/** Every problem found across the example's manifests. */
export function lintManifests(manifests: Manifest[], pinnedImages: ReadonlySet<string>): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  for (const m of manifests) {
    const kind = String(m.doc.kind);
    const meta = obj(m.doc.metadata);
    if (!(kind in API_VERSIONS)) out.push(`${m.file}: unexpected kind ${kind}`);
    else if (m.doc.apiVersion !== API_VERSIONS[kind])
      out.push(`${key(m)}: apiVersion ${String(m.doc.apiVersion)}, expected ${API_VERSIONS[kind]}`);
    if (typeof meta.name !== 'string' || !DNS_1123.test(meta.name) || meta.name.length > 63)
      out.push(`${m.file}: ${kind} has a missing or invalid metadata.name`);
    const id = `${kind}/${String(meta.name)}`;
    if (seen.has(id)) out.push(`${m.file}: ${id} defined twice`);
    seen.add(id);
  }
  const deployments = manifests.filter((m) => m.doc.kind === 'Deployment');
  const services = manifests.filter((m) => m.doc.kind === 'Service');
  for (const d of deployments) out.push(...checkDeployment(d, manifests, pinnedImages));

  const podOf = (selector: unknown) =>
    deployments.find((d) => selects(selector, obj(obj(obj(d.doc.spec).template).metadata).labels));
  for (const s of services) {
    const spec = obj(s.doc.spec);
    const target = podOf(spec.selector);
    if (!target) {
      out.push(`${key(s)}: selector matches no Deployment's pods`);
      continue;
    }
    const containerPorts = arr(obj(obj(obj(target.doc.spec).template).spec).containers).flatMap((c) =>
      arr(obj(c).ports).map((p) => obj(p).name),
    );
    for (const p of arr(spec.ports).map(obj)) {
      if (typeof p.targetPort === 'string' && !containerPorts.includes(p.targetPort))
        out.push(`${key(s)}: targetPort ${p.targetPort} is not a port of ${key(target)}`);
    }
  }
  for (const sm of manifests.filter((m) => m.doc.kind === 'ServiceMonitor')) {
    const spec = obj(sm.doc.spec);
    const svc = services.find((s) => selects(spec.selector, obj(s.doc.metadata).labels));
    if (!svc) {
      out.push(`${key(sm)}: selector matches no Service's labels`);
      continue;
    }
    const portNames = arr(obj(svc.doc.spec).ports).map((p) => obj(p).name);
    for (const e of arr(spec.endpoints).map(obj)) {
      if (!portNames.includes(e.port))
        out.push(`${key(sm)}: endpoint port ${String(e.port)} is not a port of ${key(svc)}`);
    }
  }
  for (const h of manifests.filter((m) => m.doc.kind === 'HorizontalPodAutoscaler')) {
    const spec = obj(h.doc.spec);
    const ref = obj(spec.scaleTargetRef);
    const target = deployments.find((d) => obj(d.doc.metadata).name === ref.name);
    if (ref.kind !== 'Deployment' || ref.apiVersion !== 'apps/v1' || !target)
      out.push(`${key(h)}: scaleTargetRef names no Deployment of this example`);
    if (target && obj(target.doc.spec).replicas !== undefined)
      out.push(`${key(h)}: ${key(target)} sets replicas, which every apply would reset under the autoscaler`);
    const min = Number(spec.minReplicas ?? 1);
    if (!(Number.isInteger(spec.maxReplicas) && min >= 1 && min <= (spec.maxReplicas as number)))
      out.push(`${key(h)}: needs 1 ≤ minReplicas ≤ maxReplicas`);
    const metrics = arr(spec.metrics).map(obj);
    if (metrics.length === 0) out.push(`${key(h)}: no metrics`);
    for (const metric of metrics) {
      const body = obj(metric[String(metric.type).charAt(0).toLowerCase() + String(metric.type).slice(1)]);
      const target = obj(body.target);
      if (!obj(body.metric).name) out.push(`${key(h)}: ${String(metric.type)} metric without a name`);
      if (!['Value', 'AverageValue', 'Utilization'].includes(String(target.type)))
        out.push(`${key(h)}: metric target type ${String(target.type)}`);
      const field = { Value: 'value', AverageValue: 'averageValue', Utilization: 'averageUtilization' }[
        String(target.type) as 'Value'
      ];
      if (field && target[field] === undefined) out.push(`${key(h)}: metric target lacks ${field}`);
    }
  }
  return out;
}
