/**
 * What the sandbox needs to know about the worker's machine, learned once at worker start: the
 * system directories to show read-only, the files under /etc that only root may read (hidden, since
 * the sandboxed process maps to the worker's uid), the toolchains on PATH, the real home (replaced
 * by an empty one) and the credential locations that must never show, wherever they fall.
 */
import type { Dirent } from 'node:fs';
import { existsSync, lstatSync, readdirSync, readlinkSync, realpathSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, dirname, isAbsolute, join, relative, sep } from 'node:path';
import { TOOLCHAIN_LOCATORS } from './environment.js';

/** Top-level system directories shown read-only (symlinks such as `/bin → usr/bin` are recreated). */
const SYSTEM_ROOTS = ['/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32', '/etc'];

/**
 * Credential and history locations relative to a home directory. The sandbox's home is empty, so
 * these matter where a visible directory holds them: a toolchain folder (`~/.cargo/credentials.toml`)
 * or a workspace that contains the home.
 */
export const HOME_CREDENTIALS = [
  '.ssh',
  '.aws',
  '.azure',
  '.gnupg',
  '.docker',
  '.kube',
  '.config/gh',
  '.config/gcloud',
  '.config/hub',
  '.config/op',
  '.password-store',
  '.netrc',
  '.git-credentials',
  '.gitconfig',
  '.npmrc',
  '.yarnrc',
  '.pypirc',
  '.cargo/credentials',
  '.cargo/credentials.toml',
  '.gem/credentials',
  '.m2/settings.xml',
  '.m2/settings-security.xml',
  '.gradle/gradle.properties',
  '.terraform.d/credentials.tfrc.json',
  '.vault-token',
  '.pgpass',
  '.my.cnf',
  '.mylogin.cnf',
  '.local/share/keyrings',
  '.claude',
  '.codex',
  '.bash_history',
  '.zsh_history',
  '.python_history',
  '.psql_history',
  '.mysql_history',
  '.node_repl_history',
  '.sqlite_history',
  '.lesshst',
  '.viminfo',
] as const;

/** Home folders never shown even when a PATH entry points into them. */
const NEVER_FROM_HOME = new Set(['.ssh', '.aws', '.azure', '.gnupg', '.docker', '.kube', '.password-store', '.herald']);
/** Home folders that hold many unrelated things: only the PATH entry itself is shown. */
const SHARED_HOME_FOLDERS = new Set(['.local', '.config', 'bin', 'Library', '.cache']);
/** A toolchain folder that needs a companion to work (`~/.cargo/bin/cargo` runs rustup's toolchains). */
const COMPANIONS: Record<string, string[]> = { '.cargo': ['.rustup'] };

export interface Mask {
  path: string;
  dir: boolean;
}

export interface HostFacts {
  /** `--ro-bind` each, or recreate as a symlink (`/bin → usr/bin` on merged-/usr systems). */
  systemRoots: Array<{ path: string; symlink?: string }>;
  /** Kernel interfaces under the sandbox's /proc: folders shown read-only, files hidden. */
  proc: { readOnly: string[]; masked: string[] };
  /** Paths under system roots and toolchains that must not be readable. */
  masks: Mask[];
  /** Toolchain directories outside the system roots, shown read-only. */
  toolchains: string[];
  /** The worker user's real home (an empty tmpfs inside the sandbox). */
  home: string;
  /** The worker's uid: 0 means "root", whose files map into the sandbox as the sandbox user's own. */
  uid: number;
}

function real(p: string): string | undefined {
  try {
    return realpathSync(p);
  } catch {
    return undefined;
  }
}

export function isInside(parent: string, child: string): boolean {
  const rel = relative(parent, child);
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel));
}

/**
 * Files and folders under `root` that "others" may not read. Inside the sandbox the process runs as
 * the worker's uid in its own user namespace, so for a root worker every root-only file
 * (`/etc/shadow`, `/etc/ssl/private`, a database password file) would be readable: hide them all.
 */
function othersCannotRead(root: string, limit = 20_000): Mask[] {
  const out: Mask[] = [];
  let seen = 0;
  const walk = (dir: string) => {
    let entries: Dirent[];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      if (++seen > limit) return;
      if (e.isSymbolicLink()) continue;
      const p = join(dir, e.name);
      let mode: number;
      try {
        mode = lstatSync(p).mode;
      } catch {
        continue;
      }
      const isDir = e.isDirectory();
      const readable = (mode & 0o004) !== 0 && (!isDir || (mode & 0o001) !== 0);
      if (!readable) out.push({ path: p, dir: isDir });
      else if (isDir) walk(p);
    }
  };
  walk(root);
  return out;
}

/** Top-level /proc folders with writable kernel settings: shown read-only (bubblewrap itself covers irq and bus). */
const PROC_READ_ONLY = ['/proc/sys', '/proc/fs', '/proc/driver', '/proc/sysvipc', '/proc/tty'];

/**
 * Top-level /proc files a sandboxed process must not touch: those "others" may not read (kernel
 * memory maps, slab and timer lists, kmsg) and those root may write (`sysrq-trigger` reboots the
 * machine, `mtrr`), since the sandbox user maps to the worker's uid — root for a root worker.
 */
function procMasks(): string[] {
  const out: string[] = [];
  let names: string[];
  try {
    names = readdirSync('/proc');
  } catch {
    return out;
  }
  for (const name of names) {
    if (/^\d+$/.test(name)) continue;
    const p = join('/proc', name);
    const st = lstatSync(p, { throwIfNoEntry: false });
    if (!st?.isFile()) continue;
    if ((st.mode & 0o004) === 0 || (st.mode & 0o222) !== 0) out.push(p);
  }
  if (!out.includes('/proc/sysrq-trigger')) out.push('/proc/sysrq-trigger');
  return out;
}

/** The folder to show for one PATH entry (or toolchain variable), or undefined when it is visible already or must stay hidden. */
export function toolchainRoot(dir: string, home: string, hidden: readonly string[]): string | undefined {
  const r = real(dir);
  if (!r || !statSync(r, { throwIfNoEntry: false })?.isDirectory()) return undefined;
  if (SYSTEM_ROOTS.some((s) => isInside(s, r))) return undefined;
  // Never a folder that contains the home or a hidden folder (`/`, `/home`, `/root` itself).
  if ([home, ...hidden].some((h) => isInside(r, h))) return undefined;
  if (hidden.some((h) => isInside(h, r))) return undefined;
  if (r.endsWith(`${sep}node_modules${sep}.bin`)) return dirname(r);
  if (!isInside(home, r)) return r;
  const first = relative(home, r).split(sep)[0]!;
  if (NEVER_FROM_HOME.has(first)) return undefined;
  if (SHARED_HOME_FOLDERS.has(first)) return r;
  return join(home, first);
}

/** Learn the machine once; `hidden` are folders that must never show (the Herald home). */
export function learnHost(env: NodeJS.ProcessEnv, hidden: readonly string[]): HostFacts {
  const home = real(homedir()) ?? homedir();
  const systemRoots: HostFacts['systemRoots'] = [];
  for (const p of SYSTEM_ROOTS) {
    const st = lstatSync(p, { throwIfNoEntry: false });
    if (!st) continue;
    if (st.isSymbolicLink()) systemRoots.push({ path: p, symlink: readlinkSync(p) });
    else if (st.isDirectory()) systemRoots.push({ path: p });
  }
  const masks = othersCannotRead('/etc');

  const candidates = [
    ...(env.PATH ?? '').split(delimiter).filter((d) => isAbsolute(d)),
    ...TOOLCHAIN_LOCATORS.map((n) => env[n]).filter((v): v is string => !!v && isAbsolute(v)),
    dirname(process.execPath),
  ];
  const toolchains = new Set<string>();
  for (const c of candidates) {
    const root = toolchainRoot(c, home, hidden);
    if (!root) continue;
    toolchains.add(root);
    if (isInside(home, root)) {
      for (const companion of COMPANIONS[relative(home, root)] ?? []) {
        const p = join(home, companion);
        if (existsSync(p)) toolchains.add(p);
      }
    }
  }
  // A toolchain inside another needs no mount of its own.
  const list = [...toolchains].sort();
  const outermost = list.filter((t) => !list.some((o) => o !== t && isInside(o, t)));
  for (const t of outermost) {
    if (!isInside(home, t)) continue;
    for (const c of HOME_CREDENTIALS) {
      const p = join(home, c);
      if (isInside(t, p) && existsSync(p)) masks.push({ path: p, dir: statSync(p).isDirectory() });
    }
  }
  const proc = {
    readOnly: PROC_READ_ONLY.filter((p) => existsSync(p)),
    masked: procMasks().filter((p) => existsSync(p)),
  };
  return { systemRoots, proc, masks, toolchains: outermost, home, uid: process.getuid?.() ?? -1 };
}
