/**
 * The bubblewrap command line for one call: what the sandboxed process sees (SPEC §7.8). Order
 * matters to bubblewrap (later mounts cover earlier ones), so the plan is built from the outside in:
 * namespaces and identity, system directories, what must be hidden inside them, private /tmp and
 * home, toolchains, extra paths, the workspace, then what is read-only or hidden inside it.
 */
import type { HostFacts, Mask } from './host.js';
import { isInside } from './host.js';
import type { ProtectedMounts } from './protected-mounts.js';

/** The uid and gid the command runs as inside its user namespace (`nobody`); it has no capabilities. */
export const SANDBOX_UID = 65534;

export interface CallPlan {
  workspace: string;
  cwd: string;
  network: 'none' | 'all' | 'proxy';
  protectedMounts: ProtectedMounts;
  readablePaths: readonly string[];
  writablePaths: readonly string[];
  /** What the visible trees hold but no tool may see (the Herald home, a home's credentials), applied last. */
  masks: readonly Mask[];
  /** Size of each private tmpfs (/tmp, /var/tmp, home), in MB. */
  tmpMb: number;
  /** The sandbox's own empty home (never the worker's). */
  home: string;
  /** File descriptor (in the spawned process) holding the seccomp filter, if any. */
  seccompFd?: number;
  /** Host files mounted into the sandbox (the proxy socket and bridge, a git identity). */
  files: ReadonlyArray<{ source: string; target: string }>;
}

function mask(m: Mask): string[] {
  return m.dir ? ['--tmpfs', m.path, '--remount-ro', m.path] : ['--ro-bind', '/dev/null', m.path];
}

export function bwrapArgs(host: HostFacts, plan: CallPlan, inner: readonly string[]): string[] {
  const a: string[] = [
    '--die-with-parent',
    '--new-session',
    '--unshare-all',
    ...(plan.network === 'all' ? ['--share-net'] : []),
    '--unshare-user',
    '--uid',
    String(SANDBOX_UID),
    '--gid',
    String(SANDBOX_UID),
    '--disable-userns',
    '--cap-drop',
    'ALL',
    '--hostname',
    'herald-sandbox',
    ...(plan.seccompFd !== undefined ? ['--seccomp', String(plan.seccompFd)] : []),
    '--proc',
    '/proc',
    '--dev',
    '/dev',
  ];
  for (const p of host.proc.readOnly) a.push('--ro-bind', p, p);
  for (const p of host.proc.masked) a.push('--ro-bind', '/dev/null', p);
  for (const r of host.systemRoots)
    a.push(...(r.symlink ? ['--symlink', r.symlink, r.path] : ['--ro-bind', r.path, r.path]));
  const size = String(plan.tmpMb * 1024 * 1024);
  for (const dir of ['/tmp', '/var/tmp', '/dev/shm', plan.home]) a.push('--size', size, '--tmpfs', dir);
  const visibleToolchains = host.toolchains.filter((t) => !isInside(plan.workspace, t));
  for (const t of visibleToolchains) a.push('--ro-bind', t, t);
  for (const m of host.masks) a.push(...mask(m));
  for (const p of plan.readablePaths) a.push('--ro-bind-try', p, p);
  for (const p of plan.writablePaths) a.push('--bind-try', p, p);
  a.push('--bind', plan.workspace, plan.workspace);
  for (const g of plan.protectedMounts.pinned) a.push('--bind', g, g);
  for (const p of plan.protectedMounts.readOnly) a.push('--ro-bind', p, p);
  for (const m of plan.masks) a.push(...mask(m));
  for (const f of plan.files) a.push('--ro-bind', f.source, f.target);
  a.push('--chdir', plan.cwd, '--', ...inner);
  return a;
}
