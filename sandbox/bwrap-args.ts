/**
 * The bubblewrap command line for one call: what the sandboxed process sees (docs/tool-sandbox.md). Order
 * matters to bubblewrap (later mounts cover earlier ones), so the plan is built from the outside in:
 * namespaces and identity, system directories, what must be hidden inside them, private /tmp and
 * home, toolchains, extra paths, the workspace, then what is read-only or hidden inside it.
 */
import { dirname } from 'node:path';
import type { HostFacts, Mask } from './host.js';
import { isInside } from './host.js';
import type { ProtectedMounts } from './protected-mounts.js';

/** The uid and gid the command runs as inside its user namespace (`nobody`) when the worker is not root. */
export const SANDBOX_UID = 65534;

/**
 * Who the command runs as. `namespace` (a worker that is not root): the only user of a fresh user
 * namespace, which is the worker's own uid on the host. `host` (a root worker): bubblewrap sets up
 * the sandbox as root without a user namespace (so it can mount what only root may reach), and the
 * launcher drops to the sandbox user's uid and gid on the host — keeping only the capabilities that
 * drop needs until it does.
 */
export type SandboxRunAs = { kind: 'namespace' } | { kind: 'host'; uid: number; gid: number };

/** Capabilities the launcher holds, as root, until it becomes the sandbox user (chown of its home, then setpriv). */
export const LAUNCHER_CAPS = ['CAP_SETUID', 'CAP_SETGID', 'CAP_SETPCAP', 'CAP_CHOWN'] as const;

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
  /** Host files mounted into the sandbox (the proxy socket). */
  files: ReadonlyArray<{ source: string; target: string }>;
  /** Files bubblewrap copies in from a descriptor of the spawned process (the bridge, a git identity). */
  dataFiles: ReadonlyArray<{ fd: number; target: string }>;
  runAs: SandboxRunAs;
}

function mask(m: Mask): string[] {
  return m.dir ? ['--tmpfs', m.path, '--remount-ro', m.path] : ['--ro-bind', '/dev/null', m.path];
}

/** Folders above the sandbox's mount points that nothing else creates (outside the system roots), outermost first. */
function missingParents(host: HostFacts, plan: CallPlan, shared: readonly string[]): string[] {
  const targets = [
    plan.home,
    ...host.toolchains,
    ...plan.readablePaths,
    ...plan.writablePaths,
    plan.workspace,
    ...plan.files.map((f) => f.target),
    ...plan.dataFiles.map((f) => f.target),
  ];
  const fixed = ['/proc', '/dev', ...host.systemRoots.map((r) => r.path)];
  const out = new Set<string>();
  for (const t of targets)
    for (let d = dirname(t); d !== '/' && d !== '.'; d = dirname(d))
      if (!fixed.some((f) => isInside(f, d)) && !shared.includes(d)) out.add(d);
  return [...out].sort((x, y) => x.split('/').length - y.split('/').length || x.localeCompare(y));
}

export function bwrapArgs(host: HostFacts, plan: CallPlan, inner: readonly string[]): string[] {
  const identity =
    plan.runAs.kind === 'namespace'
      ? [
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
        ]
      : [
          // `--unshare-all` would try a user namespace too; the seccomp filter refuses new ones instead.
          '--unshare-ipc',
          '--unshare-pid',
          '--unshare-uts',
          '--unshare-cgroup-try',
          ...(plan.network === 'all' ? [] : ['--unshare-net']),
          '--cap-drop',
          'ALL',
          ...LAUNCHER_CAPS.flatMap((c) => ['--cap-add', c]),
        ];
  const a: string[] = [
    '--die-with-parent',
    '--new-session',
    ...identity,
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
  const shared = ['/tmp', '/var/tmp', '/dev/shm'];
  // bubblewrap running as root makes a mount point's missing parents private to root: the sandbox
  // user could not reach its workspace or toolchains through them. Make them traversable first.
  const parents = plan.runAs.kind === 'host' ? missingParents(host, plan, shared) : [];
  const dirs = (list: string[]) => list.flatMap((d) => ['--perms', '0755', '--dir', d]);
  a.push(...dirs(parents.filter((d) => !shared.some((t) => isInside(t, d)))));
  // As root, bubblewrap makes root's folders: the shared ones are sticky and open to all, the home the launcher's to give away.
  const asRoot = plan.runAs.kind === 'host';
  for (const dir of shared) a.push(...(asRoot ? ['--perms', '1777'] : []), '--size', size, '--tmpfs', dir);
  a.push(...(asRoot ? ['--perms', '0700'] : []), '--size', size, '--tmpfs', plan.home);
  a.push(...dirs(parents.filter((d) => shared.some((t) => isInside(t, d)))));
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
  for (const f of plan.dataFiles) a.push('--perms', '0444', '--ro-bind-data', String(f.fd), f.target);
  a.push('--chdir', plan.cwd, '--', ...inner);
  return a;
}
