/**
 * Where a conversation may work. Its `cwd` — from workflow input, `herald --cwd`, the client
 * library, a parent delegating, a resumed session's stored folder — is resolved with `realpath` and
 * must lie inside one of the worker's workspace roots (`workspaceRoots`, HERALD_WORKSPACE_ROOTS,
 * else HERALD_WORKSPACE, else `~/workspaces`). Whatever the roots say, a workspace is never one of
 * the folders the worker itself depends on (GUARDS below), never inside a sealed one, and never a
 * folder that holds one: the sandbox mounts the workspace read-write, so a workspace holding the
 * Herald checkout, the Herald home or the sandbox's runtime files would let a tool rewrite what the
 * worker runs or trusts later.
 *
 * The decision is pure (`decideCwd`, `vetRoot`: strings in, verdict out, tested over a table);
 * `buildWorkspacePolicy` and `confineCwd` are the only file-system steps: one `realpath` and one
 * `stat` of the caller's path, each bounded in time, and nothing before the verdict.
 */
import { mkdir, readFile, realpath, stat } from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import type { MountEntry } from './mount-aliases.js';
import { mountAliases, mountsInside, parseMountinfo } from './mount-aliases.js';
import { PROJECT_ROOT } from './paths.js';

/**
 * How a guarded folder is kept out of workspaces. `sealed`: neither it, nor anything in it, nor a
 * folder holding it. `holder` (the worker's home and its parents): neither it nor a folder holding
 * it, but a folder inside may be a workspace (`~/workspaces`). `shared` (the temp folder): like
 * `holder`, and it may still be a root (a root of /tmp is fine; a workspace of /tmp is not).
 */
export type GuardKind = 'sealed' | 'holder' | 'shared';

export interface GuardedFolder {
  path: string;
  kind: GuardKind;
  why: string;
}

/** Folders named like this directly inside `parent` are sealed (other workers' runtime folders, agent sockets). */
export interface GuardedName {
  parent: string;
  name: RegExp;
  why: string;
}

export interface WorkspacePolicy {
  /** Real paths of the usable roots, in the configured order. */
  roots: string[];
  /** Configured roots that are not used, with why (missing, or themselves guarded). */
  refusedRoots: Array<{ root: string; why: string }>;
  guarded: GuardedFolder[];
  names: GuardedName[];
  /** Compare paths case-blind (macOS and Windows file systems). */
  caseInsensitive: boolean;
  /** Where the roots came from, for messages: the config key or variable. */
  source: string;
}

/** Longest `cwd` looked at (Linux PATH_MAX; the workflow input is bounded the same). */
export const MAX_CWD_CHARS = 4096;

/** Folders that are never a workspace, with why (a table: data, not code). */
export const SYSTEM_GUARDS: ReadonlyArray<{ path: string; why: string }> = [
  { path: '/proc', why: 'the kernel’s process table' },
  { path: '/sys', why: 'the kernel’s device and driver tree' },
  { path: '/dev', why: 'device files' },
  { path: '/run', why: 'runtime sockets (Postgres, Docker, systemd)' },
  { path: '/var/run', why: 'runtime sockets (Postgres, Docker, systemd)' },
  { path: '/etc', why: 'the system’s configuration' },
  { path: '/boot', why: 'the kernel and boot loader' },
  { path: '/usr', why: 'installed programs the worker runs' },
  { path: '/bin', why: 'installed programs the worker runs' },
  { path: '/sbin', why: 'installed programs the worker runs' },
  { path: '/lib', why: 'system libraries' },
  { path: '/lib32', why: 'system libraries' },
  { path: '/lib64', why: 'system libraries' },
  { path: '/libx32', why: 'system libraries' },
  { path: '/var/lib', why: 'services’ data (Postgres, Docker, package managers)' },
  { path: '/var/spool', why: 'cron tables and mail queues' },
  { path: '/var/log', why: 'system logs' },
  { path: '/var/cache', why: 'package caches the system installs from' },
  { path: '/var/mail', why: 'local mail' },
  { path: '/var/backups', why: 'system backups' },
];

/**
 * What the guards are built from: the worker's folders, each as named and as resolved (a guard
 * must hold whichever spelling a caller's path resolves through).
 */
export interface WorkerFacts {
  homes: string[];
  heraldHomes: string[];
  projectRoots: string[];
  tmps: string[];
  /** This worker's sandbox runtime folder, if the sandbox keeps one. */
  sandboxRuntimes: string[];
  /** Folders of the running Node.js and of Herald's dependencies (they may lie outside the install). */
  installs: string[];
  /** XDG_* folders the worker's environment names (configuration, data, state, cache, runtime). */
  xdg: string[];
  /** Resolved spellings of SYSTEM_GUARDS folders that are links (`/var/run` → `/run`, `/lib` → `/usr/lib`). */
  systemAliases: Array<{ path: string; why: string }>;
}

/** Every folder a workspace must keep clear of, from the worker's facts. Pure. */
export function guardsFor(f: WorkerFacts): { guarded: GuardedFolder[]; names: GuardedName[] } {
  const each = (paths: string[], kind: GuardKind, why: string) => paths.map((path) => ({ path, kind, why }));
  // A system folder holding the worker's home (a service user's /var/lib/herald) only holds it:
  // the home's own rules apply inside.
  const system = (path: string): GuardKind => (f.homes.some((h) => within(path, h)) ? 'holder' : 'sealed');
  const all: GuardedFolder[] = [
    { path: '/', kind: 'holder', why: 'the whole file system' },
    ...[...SYSTEM_GUARDS, ...f.systemAliases].map((g) => ({ ...g, kind: system(g.path) })),
    ...each(f.homes, 'holder', 'the worker’s home (credentials, shell startup files)'),
    ...each(f.homes.flatMap(parentsOf), 'holder', 'a parent of the worker’s home'),
    ...each(f.heraldHomes, 'sealed', 'the Herald home (Temporal’s and Postgres’s data, keys, logs)'),
    ...each(f.projectRoots, 'sealed', 'Herald’s own install (code the worker runs)'),
    ...each(f.installs, 'sealed', 'code the worker runs (Node.js, dependencies)'),
    ...each(f.xdg, 'sealed', 'the worker’s XDG configuration, data, cache or runtime folder'),
    ...each(f.tmps, 'shared', 'the shared temp folder (other processes’ sockets and files)'),
    ...each(f.sandboxRuntimes, 'sealed', 'the sandbox’s runtime files'),
  ];
  // One entry per path: the strictest kind wins (sealed, then holder, then shared).
  const rank: Record<GuardKind, number> = { sealed: 0, holder: 1, shared: 2 };
  const guarded: GuardedFolder[] = [];
  for (const g of all) {
    const at = guarded.findIndex((x) => x.path === g.path);
    if (at < 0) guarded.push(g);
    else if (rank[g.kind] < rank[guarded[at]!.kind]) guarded[at] = g;
  }
  const names: GuardedName[] = [
    ...f.homes.map((parent) => ({
      parent,
      name: /^\./,
      why: 'a dot-folder of the worker’s home (credentials, configuration)',
    })),
    ...f.tmps.flatMap((parent) => [
      { parent, name: /^herald-sandbox-[A-Za-z0-9]{6}$/, why: 'a Herald sandbox’s runtime files (mkdtemp’s name)' },
      { parent, name: /^\./, why: 'a hidden folder of the temp folder (X11 and other sockets)' },
      { parent, name: /^(tmux-|ssh-|systemd-private-|snap-private-tmp)/, why: 'another program’s sockets' },
    ]),
  ];
  return { guarded, names };
}

function parentsOf(p: string): string[] {
  const out: string[] = [];
  for (let d = dirname(p); d !== p && !out.includes(d); p = d, d = dirname(d)) out.push(d);
  return out;
}

const fold = (p: string, ci: boolean) => (ci ? p.toLowerCase() : p);

/** `child` is `parent` or lies inside it (both absolute, normalised). */
export function within(parent: string, child: string, ci = false): boolean {
  const a = fold(parent, ci);
  const b = fold(child, ci);
  return b === a || b.startsWith(a.endsWith('/') ? a : `${a}/`);
}

/** Why `real` (a resolved path) may never be a workspace, or undefined. Pure. */
export function guardedReason(
  real: string,
  p: Pick<WorkspacePolicy, 'guarded' | 'names' | 'caseInsensitive'>,
): string | undefined {
  const ci = p.caseInsensitive;
  for (const g of p.guarded) {
    if (fold(real, ci) === fold(g.path, ci)) return `it is ${g.why}`;
    if (g.kind === 'sealed' && within(g.path, real, ci)) return `it lies in ${g.path}, ${g.why}`;
  }
  for (const g of p.guarded) if (within(real, g.path, ci)) return `it holds ${g.path}, ${g.why}`;
  for (const n of p.names) {
    if (real === n.parent || !within(n.parent, real, ci)) continue;
    const first = real.slice(n.parent.length).replace(/^\/+/, '').split('/')[0] ?? '';
    if (n.name.test(first)) return `it lies in ${join(n.parent, first)}, ${n.why}`;
  }
  return undefined;
}

export type CwdVerdict = { ok: true; cwd: string } | { ok: false; why: string };

/**
 * Whether a resolved folder may be a workspace under `policy`. With the mount table, the names it
 * has through bind mounts are decided too, and so are the mounts it holds. Pure.
 */
export function decideCwd(real: string, policy: WorkspacePolicy, mounts: readonly MountEntry[] = []): CwdVerdict {
  const guarded = guardedReason(real, policy);
  if (guarded) return { ok: false, why: `${real} is refused: ${guarded}` };
  for (const alias of mountAliases(real, mounts)) {
    const why = guardedReason(alias, policy);
    if (why) return { ok: false, why: `${real} is refused: it is ${alias} mounted again, and ${why}` };
  }
  for (const inner of mountsInside(real, mounts))
    for (const alias of [inner, ...mountAliases(inner, mounts)]) {
      const why = alias === inner ? undefined : guardedReason(alias, policy);
      if (why) return { ok: false, why: `${real} is refused: it holds ${inner}, a mount of ${alias}, and ${why}` };
    }
  if (!policy.roots.some((r) => within(r, real, policy.caseInsensitive)))
    return { ok: false, why: `${real} is outside the workspace roots` };
  return { ok: true, cwd: real };
}

/**
 * Why a configured root (resolved) cannot be one, or undefined. A root may hold guarded folders
 * (its workspaces may not); it may not be one, nor lie in a sealed one. Pure.
 */
export function vetRoot(
  real: string,
  p: Pick<WorkspacePolicy, 'guarded' | 'names' | 'caseInsensitive'>,
): string | undefined {
  const ci = p.caseInsensitive;
  for (const g of p.guarded) {
    if (g.kind !== 'shared' && fold(real, ci) === fold(g.path, ci)) return `it is ${g.why}`;
    if (g.kind === 'sealed' && within(g.path, real, ci)) return `it lies in ${g.path}, ${g.why}`;
  }
  return guardedReason(real, { ...p, guarded: [] });
}

/** The caller's string, before any file-system step: why it cannot name a folder, or undefined. Pure. */
export function rawCwdProblem(cwd: string): string | undefined {
  if (cwd.length === 0) return 'empty';
  if (cwd.length > MAX_CWD_CHARS) return `too long (${cwd.length} characters; at most ${MAX_CWD_CHARS})`;
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(cwd))
    return 'control characters (a NUL byte, a newline, …) are not allowed in a path';
  return undefined;
}

/** A path for a message: one line, bounded. */
export function shown(p: string, max = 200): string {
  const s = JSON.stringify(p.length > max ? `${p.slice(0, max)}…` : p).slice(1, -1);
  return s;
}

/** The roots as a message lists them (bounded: a few, each shortened). */
export function describeRoots(policy: Pick<WorkspacePolicy, 'roots' | 'source'>): string {
  if (!policy.roots.length) return `no usable workspace roots (${policy.source})`;
  const listed = policy.roots.slice(0, 8).map((r) => shown(r));
  const more = policy.roots.length > 8 ? ` and ${policy.roots.length - 8} more` : '';
  return `workspace roots: ${listed.join(', ')}${more} (${policy.source})`;
}

// ---------------------------------------------------------------------------------------------
// The file-system steps.

/** How long one `realpath` or `stat` of a caller's path may take (a hung mount fails, never waits). */
export const FS_STEP_MS = 5_000;

async function bounded<T>(what: Promise<T>, ms = FS_STEP_MS): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      what,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(Object.assign(new Error('timed out'), { code: 'ETIMEDOUT' })), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** This process's mount table ([] where there is none to read, e.g. macOS). */
async function mountTable(): Promise<MountEntry[]> {
  try {
    return parseMountinfo(await bounded(readFile('/proc/self/mountinfo', 'utf8')));
  } catch {
    return [];
  }
}

async function real(p: string): Promise<string | undefined> {
  try {
    return await bounded(realpath(p));
  } catch {
    return undefined;
  }
}

/** Both spellings of a folder: as named and resolved (a guard must hold whichever a path resolves through). */
async function spellings(p: string): Promise<string[]> {
  const r = await real(p);
  return r && r !== p ? [p, r] : [p];
}

/** The worker's facts, gathered once. */
export async function workerFacts(o: {
  heraldHome: string;
  sandboxRuntime?: string;
  env?: NodeJS.ProcessEnv;
}): Promise<WorkerFacts> {
  const env = o.env ?? process.env;
  const both = async (ps: Array<string | undefined>) => [
    ...new Set((await Promise.all(ps.filter((p): p is string => !!p).map((p) => spellings(resolve(p))))).flat()),
  ];
  // The Node.js prefix may be `/usr` or `/usr/local` (guarded as system folders already) or a version manager's.
  const node = dirname(dirname(process.execPath));
  return {
    homes: await both([homedir()]),
    heraldHomes: await both([o.heraldHome]),
    projectRoots: await both([PROJECT_ROOT]),
    tmps: await both([tmpdir()]),
    sandboxRuntimes: await both([o.sandboxRuntime]),
    installs: (await both([node, join(PROJECT_ROOT, 'node_modules'), join(PROJECT_ROOT, '.tools')])).filter(
      (p) => p !== '/' && p !== '/usr',
    ),
    xdg: await both(
      ['XDG_CONFIG_HOME', 'XDG_DATA_HOME', 'XDG_STATE_HOME', 'XDG_CACHE_HOME', 'XDG_RUNTIME_DIR']
        .map((k) => env[k])
        .filter((v) => v && isAbsolute(v)),
    ),
    systemAliases: (
      await Promise.all(SYSTEM_GUARDS.map(async (g) => ({ ...g, path: (await real(g.path)) ?? g.path })))
    ).filter((g, i) => g.path !== SYSTEM_GUARDS[i]!.path),
  };
}

export interface RootsSetting {
  /** As configured (absolute; `~/` already expanded). */
  roots: string[];
  source: string;
  /** The built-in default: created at worker start when missing. */
  isDefault: boolean;
}

/** The default workspace root when none is configured. */
export function defaultWorkspaceRoot(home = homedir()): string {
  return join(home, 'workspaces');
}

/**
 * The policy a worker applies: its roots resolved and vetted, and the guards. With `create`, the
 * built-in default root is made when missing (it is the worker's own folder, not a caller's).
 */
export async function buildWorkspacePolicy(o: {
  setting: RootsSetting;
  heraldHome: string;
  sandboxRuntime?: string;
  env?: NodeJS.ProcessEnv;
  create?: boolean;
}): Promise<WorkspacePolicy> {
  const { guarded, names } = guardsFor(await workerFacts(o));
  const base = { guarded, names, caseInsensitive: process.platform === 'darwin' || process.platform === 'win32' };
  const roots: string[] = [];
  const refusedRoots: WorkspacePolicy['refusedRoots'] = [];
  for (const root of o.setting.roots) {
    if (o.create && o.setting.isDefault) await mkdir(root, { recursive: true }).catch(() => {});
    const r = await real(root);
    if (!r) {
      refusedRoots.push({ root, why: 'no such folder' });
      continue;
    }
    const why = vetRoot(r, base);
    if (why) refusedRoots.push({ root, why });
    else if (!roots.includes(r)) roots.push(r);
  }
  return { ...base, roots, refusedRoots, source: o.setting.source };
}

/**
 * A conversation's workspace: the caller's `cwd` (relative ones against `fallback`), or `fallback`,
 * resolved and decided. Nothing touches the folder before the verdict but `realpath`; a folder
 * allowed is then `stat`ed once to be sure it is one.
 */
export async function confineCwd(
  cwd: string | undefined,
  fallback: string | undefined,
  policy: WorkspacePolicy,
): Promise<CwdVerdict> {
  const named = cwd ?? fallback;
  if (named === undefined) return { ok: false, why: 'no workspace named and no default workspace' };
  const problem = rawCwdProblem(named);
  if (problem) return { ok: false, why: problem };
  // Not normalised lexically: `link/..` must mean what the kernel says it means.
  const absolute = isAbsolute(named) ? named : fallback ? `${fallback}/${named}` : undefined;
  if (!absolute) return { ok: false, why: `${shown(named)} is relative and there is no default workspace` };
  let resolved: string;
  try {
    resolved = await bounded(realpath(absolute));
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return {
      ok: false,
      why:
        code === 'ETIMEDOUT'
          ? `${shown(named)} could not be resolved in time`
          : `no such directory ${shown(named)}${code && code !== 'ENOENT' ? ` (${code})` : ''}`,
    };
  }
  const verdict = decideCwd(resolved, policy, await mountTable());
  if (!verdict.ok) return { ok: false, why: shown(verdict.why, 400) };
  try {
    if (!(await bounded(stat(resolved))).isDirectory())
      return { ok: false, why: `not a directory: ${shown(resolved)}` };
  } catch {
    return { ok: false, why: `no such directory ${shown(named)}` };
  }
  return verdict;
}
