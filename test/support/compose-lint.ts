/**
 * What `docker compose config` would refuse, and what it would accept but `up` would trip on,
 * checked on the parsed compose file without a Docker engine (CI has none, and no registry but npm,
 * PyPI and Debian). Returns one line per problem; an empty list is a file that holds together.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';

type Doc = Record<string, unknown>;
const isObj = (v: unknown): v is Doc => typeof v === 'object' && v !== null && !Array.isArray(v);
/** A scalar as text (anything else as empty: it is reported, not stringified). */
const str = (v: unknown): string =>
  typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean' ? String(v) : '';

/** Compose durations: `1m30s`, `500ms`, `2s` (Go's time.ParseDuration units compose accepts). */
export const DURATION = /^(\d+(\.\d+)?(us|ms|s|m|h))+$/;
const DEPENDS_CONDITIONS = new Set(['service_started', 'service_healthy', 'service_completed_successfully']);

export interface ComposeLintOptions {
  /** Folder the file's relative paths resolve from. */
  root: string;
  /** Images known to exist (deploy/image-pins.yaml). */
  pinnedImages: ReadonlySet<string>;
}

/** `${VAR}` references in a text that have neither a default (`:-`, `-`) nor a required mark (`:?`). */
export function bareInterpolations(text: string): string[] {
  const out: string[] = [];
  // `$$` is a literal dollar; a `${` after it is not an interpolation.
  for (const m of text.replaceAll('$$', '').matchAll(/\$\{([A-Za-z_][A-Za-z0-9_]*)([^}]*)\}/g)) {
    if (!/^:?[-?]/.test(m[2] ?? '')) out.push(m[1]!);
  }
  for (const m of text.replaceAll('$$', '').matchAll(/\$([A-Za-z_][A-Za-z0-9_]*)/g)) out.push(m[1]!);
  return out;
}

function dependsOn(service: Doc): Array<[string, string]> {
  const d = service.depends_on;
  if (Array.isArray(d)) return d.map((n) => [String(n), 'service_started']);
  if (isObj(d)) return Object.entries(d).map(([n, v]) => [n, isObj(v) ? String(v.condition) : 'service_started']);
  return [];
}

/** Host ports a service binds (any address: 0.0.0.0 and 127.0.0.1 on one port collide too). */
function hostPorts(service: Doc): string[] {
  const ports = Array.isArray(service.ports) ? service.ports : [];
  return ports.flatMap((p: unknown) => {
    if (isObj(p)) return p.published === undefined ? [] : [str(p.published)];
    const parts = String(p).split('/')[0]!.split(':');
    // "7233" publishes on a random host port; "7233:7233" and "127.0.0.1:7233:7233" bind one.
    return parts.length === 1 ? [] : [parts[parts.length - 2]!];
  });
}

function checkHealthcheck(name: string, hc: unknown): string[] {
  if (!isObj(hc)) return [`${name}: healthcheck is not a mapping`];
  const out: string[] = [];
  const test = hc.test;
  if (Array.isArray(test)) {
    const [kind, ...rest] = test.map(String);
    if (kind === 'NONE') return out;
    if (kind !== 'CMD' && kind !== 'CMD-SHELL') out.push(`${name}: healthcheck.test must start with CMD or CMD-SHELL`);
    if (rest.length === 0) out.push(`${name}: healthcheck.test has no command`);
    if (kind === 'CMD-SHELL' && rest.length !== 1) out.push(`${name}: CMD-SHELL takes one command string`);
  } else if (typeof test !== 'string' || !test.trim()) out.push(`${name}: healthcheck.test missing`);
  for (const key of ['interval', 'timeout', 'start_period', 'start_interval']) {
    if (hc[key] !== undefined && !DURATION.test(str(hc[key])))
      out.push(`${name}: healthcheck.${key} ${str(hc[key])} is not a duration`);
  }
  if (hc.retries !== undefined && !(Number.isInteger(hc.retries) && (hc.retries as number) > 0))
    out.push(`${name}: healthcheck.retries must be a positive integer`);
  return out;
}

/** Every problem found in a parsed compose document (`text` is its source, for interpolations). */
export function lintCompose(doc: unknown, text: string, o: ComposeLintOptions): string[] {
  if (!isObj(doc) || !isObj(doc.services)) return ['no services'];
  const out: string[] = [];
  const services = doc.services;
  const volumes = isObj(doc.volumes) ? doc.volumes : {};
  const networks = isObj(doc.networks) ? doc.networks : {};
  const seenPorts = new Map<string, string>();

  for (const v of bareInterpolations(text)) out.push(`\${${v}} has no default (write \${${v}:-} or \${${v}:?message})`);

  for (const [name, raw] of Object.entries(services)) {
    if (!isObj(raw)) {
      out.push(`${name}: not a mapping`);
      continue;
    }
    const s = raw;
    if (s.image === undefined && s.build === undefined) out.push(`${name}: neither image nor build`);
    if (typeof s.image === 'string') {
      if (!/:[^/]+$/.test(s.image) || s.image.endsWith(':latest'))
        out.push(`${name}: image ${s.image} has no fixed tag`);
      else if (!o.pinnedImages.has(s.image)) out.push(`${name}: image ${s.image} is not in deploy/image-pins.yaml`);
      if (s.image.startsWith('temporalio/auto-setup')) out.push(`${name}: temporalio/auto-setup is deprecated`);
    }
    if (s.build !== undefined) {
      const context = typeof s.build === 'string' ? s.build : isObj(s.build) ? str(s.build.context ?? '.') : '.';
      const dockerfile = isObj(s.build) && s.build.dockerfile ? str(s.build.dockerfile) : 'Dockerfile';
      if (!existsSync(join(o.root, context, dockerfile))) out.push(`${name}: build has no ${dockerfile} in ${context}`);
    }
    for (const [dep, condition] of dependsOn(s)) {
      const target = services[dep];
      if (!isObj(target)) {
        out.push(`${name}: depends_on ${dep}, which is not a service`);
        continue;
      }
      if (!DEPENDS_CONDITIONS.has(condition))
        out.push(`${name}: depends_on ${dep} with unknown condition ${condition}`);
      if (condition === 'service_healthy' && !isObj(target.healthcheck))
        out.push(`${name}: waits for ${dep} to be healthy, but ${dep} has no healthcheck`);
      if (
        condition === 'service_completed_successfully' &&
        ['always', 'unless-stopped'].includes(String(target.restart))
      )
        out.push(`${name}: waits for ${dep} to complete, but ${dep} restarts (restart: ${String(target.restart)})`);
    }
    if (s.healthcheck !== undefined) out.push(...checkHealthcheck(name, s.healthcheck));
    for (const net of Array.isArray(s.networks) ? s.networks : isObj(s.networks) ? Object.keys(s.networks) : []) {
      if (!(String(net) in networks)) out.push(`${name}: network ${String(net)} is not declared`);
    }
    const mounts = new Map<string, string>();
    for (const vol of Array.isArray(s.volumes) ? s.volumes : []) {
      const [source, target] = isObj(vol) ? [String(vol.source), String(vol.target)] : String(vol).split(':');
      if (!source || !target) continue;
      if (source.startsWith('.') || source.startsWith('/')) mounts.set(target, source);
      else if (!(source in volumes)) out.push(`${name}: volume ${source} is not declared`);
    }
    // A one-shot job that runs a script from a bind mount: the script must be in the repository.
    const entry = Array.isArray(s.entrypoint) ? s.entrypoint.map(String) : [];
    for (const arg of entry) {
      for (const [target, source] of mounts) {
        if (arg.startsWith(`${target}/`) && !existsSync(join(o.root, source, arg.slice(target.length + 1))))
          out.push(`${name}: runs ${arg}, but ${source} has no such file`);
      }
    }
    for (const port of hostPorts(s)) {
      const other = seenPorts.get(port);
      if (other) out.push(`${name}: host port ${port} is already published by ${other}`);
      else seenPorts.set(port, name);
    }
  }
  return out;
}
