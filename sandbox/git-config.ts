/**
 * Git configuration as git itself reads it: `git config --file <f> --list --null --no-includes`,
 * with no system or global configuration and no home, so that what the guard sees is exactly what
 * the user's `git` will parse — keys on a section's header line (`[core] fsmonitor = …`), `[CORE]`,
 * quoted values, continuation lines and comments included. A file git cannot parse is reported as
 * such (the user's git refuses it too, but the guard does not rely on that). Parses are cached by
 * the file's identity (device, inode, size, modification and change times: a write always moves the
 * change time), so an unchanged workspace costs one `lstat` per file.
 */
import { spawnSync } from 'node:child_process';
import { closeSync, constants, fstatSync, lstatSync, openSync, readSync } from 'node:fs';

export interface ConfigEntry {
  /** As git lists it: section and name lower-cased, a subsection as written (`filter.Foo.clean`). */
  key: string;
  /** Undefined for a bare key (`[core] bare`), which git reads as true. */
  value: string | undefined;
}

export type ConfigRead =
  | { ok: true; entries: ConfigEntry[] }
  | {
      ok: false;
      why: 'missing' | 'not a regular file' | 'too large' | 'unparsable' | 'not checked: too many to parse';
    };

export interface ReadOptions {
  /** Use and fill the cache (default true). */
  cached?: boolean;
  /**
   * Lower-case words one of which a file must contain to hold a key of interest (key names cannot
   * be escaped or split, so a file without any of them holds none): git is not started for it,
   * and it reads as empty.
   */
  marks?: readonly string[];
  /** Git parses left for this check: at zero a file that needs one is reported as not checked. */
  budget?: { left: number };
}

/** Larger configuration files are not parsed: treated as unreadable (git's own are a few KB). */
export const MAX_CONFIG_BYTES = 1024 * 1024;

/** An environment in which git reads nothing but the file it is given. */
export function isolatedGitEnv(): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: '/nonexistent',
    XDG_CONFIG_HOME: '/nonexistent',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_CONFIG_SYSTEM: '/dev/null',
    GIT_CEILING_DIRECTORIES: '/',
    LC_ALL: 'C',
  };
}

/** Split `--list --null` output: `key\nvalue\0` per entry, `key\0` for a bare key. */
export function parseList(out: Buffer): ConfigEntry[] {
  const entries: ConfigEntry[] = [];
  for (const record of out.toString('utf8').split('\0')) {
    if (!record) continue;
    const nl = record.indexOf('\n');
    entries.push(
      nl < 0 ? { key: record, value: undefined } : { key: record.slice(0, nl), value: record.slice(nl + 1) },
    );
  }
  return entries;
}

const cache = new Map<string, { sig: string; read: ConfigRead }>();
const CACHE_LIMIT = 20_000;

function signature(st: { dev: number; ino: number; size: number; mtimeMs: number; ctimeMs: number }): string {
  return `${st.dev}:${st.ino}:${st.size}:${st.mtimeMs}:${st.ctimeMs}`;
}

/** The file's identity, or why it cannot be read: links are never followed (the caller resolves them). */
export function fileSignature(path: string): string | undefined {
  const st = lstatSync(path, { throwIfNoEntry: false });
  return st?.isFile() ? signature(st) : undefined;
}

/** Read a configuration file the way git will. `path` must not be a link (checked without following). */
export function readConfig(path: string, options: ReadOptions = {}): ConfigRead {
  const cached = options.cached ?? true;
  const st = lstatSync(path, { throwIfNoEntry: false });
  if (!st) return { ok: false, why: 'missing' };
  if (!st.isFile()) return { ok: false, why: 'not a regular file' };
  if (st.size > MAX_CONFIG_BYTES) return { ok: false, why: 'too large' };
  const sig = signature(st);
  const hit = cached ? cache.get(path) : undefined;
  if (hit?.sig === sig) return hit.read;
  // Git is handed the bytes on stdin, read through a descriptor opened without following links,
  // so what it parses is the file that was checked, not whatever a link swapped in meanwhile.
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return { ok: false, why: 'not a regular file' };
  }
  let bytes: Buffer;
  try {
    const fst = fstatSync(fd);
    if (!fst.isFile()) return { ok: false, why: 'not a regular file' };
    if (fst.size > MAX_CONFIG_BYTES) return { ok: false, why: 'too large' };
    bytes = Buffer.alloc(fst.size + 1);
    const n = readSync(fd, bytes, 0, bytes.length, 0);
    if (n > fst.size) return { ok: false, why: 'too large' };
    bytes = bytes.subarray(0, n);
  } finally {
    closeSync(fd);
  }
  if (options.marks) {
    const text = bytes.toString('latin1').toLowerCase();
    if (!options.marks.some((m) => text.includes(m))) return { ok: true, entries: [] };
  }
  if (options.budget && options.budget.left-- <= 0) return { ok: false, why: 'not checked: too many to parse' };
  const read = parseBytes(bytes);
  if (!cached) return read;
  if (cache.size >= CACHE_LIMIT) cache.clear();
  cache.set(path, { sig, read });
  return read;
}

/** Parse configuration text with git (from stdin: `--file -`). */
export function parseBytes(bytes: Buffer): ConfigRead {
  const r = spawnSync('git', ['config', '--file', '-', '--list', '--null', '--no-includes'], {
    input: bytes,
    cwd: '/',
    env: isolatedGitEnv(),
    timeout: 10_000,
    maxBuffer: 4 * MAX_CONFIG_BYTES,
  });
  // An empty file lists nothing and exits 0; a parse error exits non-zero.
  if (r.status !== 0 || r.error) return { ok: false, why: 'unparsable' };
  return { ok: true, entries: parseList(r.stdout) };
}

/** Split a listed key into section, subsection (if any) and name, as git does (first and last dot). */
export function splitKey(key: string): { section: string; subsection: string | undefined; name: string } {
  const first = key.indexOf('.');
  const last = key.lastIndexOf('.');
  return {
    section: key.slice(0, first),
    subsection: first === last ? undefined : key.slice(first + 1, last),
    name: key.slice(last + 1),
  };
}

const quoteSubsection = (s: string) => `"${s.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
const quoteValue = (s: string) =>
  `"${s.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n').replace(/\t/g, '\\t').replaceAll('\u0008', '\\b')}"`;

/**
 * Configuration text holding exactly `entries`, in order, in git's plainest form (one header per
 * run of keys, every value quoted). The guard writes this instead of editing the attacker's text,
 * then has git parse the result to prove that it lists what was meant.
 */
export function renderConfig(entries: readonly ConfigEntry[]): string {
  let out = '';
  let header: string | undefined;
  for (const e of entries) {
    const { section, subsection, name } = splitKey(e.key);
    const h = subsection === undefined ? `[${section}]` : `[${section} ${quoteSubsection(subsection)}]`;
    if (h !== header) out += `${h}\n`;
    header = h;
    out += e.value === undefined ? `\t${name}\n` : `\t${name} = ${quoteValue(e.value)}\n`;
  }
  return out;
}
