/**
 * The other names a folder has through bind mounts (/proc/self/mountinfo): a folder of the
 * workspace root may be a bind of the Herald checkout's `node_modules` or of `/etc`, which no
 * `realpath` reveals. Pure: the mount table is read by the caller.
 */
import { posix } from 'node:path';

export interface MountEntry {
  /** `major:minor` of the file system. */
  device: string;
  /** The folder of that file system mounted here. */
  root: string;
  mountPoint: string;
}

/** At most this many mounts are looked at (a container's table has dozens; more is not a workstation's). */
export const MAX_MOUNTS = 10_000;

const unescape = (s: string) => s.replace(/\\([0-7]{3})/g, (_, o: string) => String.fromCharCode(parseInt(o, 8)));

/** Lines of /proc/self/mountinfo: `id parent major:minor root mountpoint options … - type source super`. */
export function parseMountinfo(text: string): MountEntry[] {
  const out: MountEntry[] = [];
  for (const line of text.split('\n').slice(0, MAX_MOUNTS)) {
    const f = line.split(' ');
    if (f.length < 5 || !/^\d+:\d+$/.test(f[2]!)) continue;
    out.push({ device: f[2]!, root: unescape(f[3]!), mountPoint: unescape(f[4]!) });
  }
  return out;
}

/** `base` followed by `rest` (a tail of a path, maybe empty), with no trailing slash. */
const under = (base: string, rest: string) => (rest.replace(/^\/+/, '') ? posix.join(base, rest) : base);

const inside = (parent: string, child: string) =>
  child === parent || child.startsWith(parent.endsWith('/') ? parent : `${parent}/`);

/** The mount a path lies on: the last-mounted of the longest mount points holding it. */
function mountOf(path: string, mounts: readonly MountEntry[]): MountEntry | undefined {
  let best: MountEntry | undefined;
  for (const m of mounts)
    if (inside(m.mountPoint, path) && (!best || m.mountPoint.length >= best.mountPoint.length)) best = m;
  return best;
}

/** Every other path that names the folder `real` (resolved) through the mounts of its file system. */
export function mountAliases(real: string, mounts: readonly MountEntry[]): string[] {
  const m = mountOf(real, mounts);
  if (!m) return [];
  const source = under(m.root, real.slice(m.mountPoint.length));
  const out = new Set<string>();
  for (const n of mounts) {
    if (n.device !== m.device || !inside(n.root, source)) continue;
    const alias = under(n.mountPoint, source.slice(n.root.length));
    // Only a name under which this mount is the one seen (not covered by a later mount).
    if (alias !== real && mountOf(alias, mounts) === n) out.add(alias);
  }
  return [...out];
}

/** Mount points strictly inside `real`: what a workspace there holds besides its own folders. */
export function mountsInside(real: string, mounts: readonly MountEntry[]): string[] {
  return mounts.map((m) => m.mountPoint).filter((p) => p !== real && inside(real, p));
}
