/**
 * Resource caps for one sandboxed call (docs/tool-sandbox.md): processes, memory, file size; wall time is the
 * tool's timeout. Where the worker may create cgroups (a root worker with the v1 `pids` and `memory`
 * hierarchies writable) each call gets its own cgroup, which caps the whole process tree. Otherwise
 * the caps are rlimits set inside the sandbox before the command starts: `RLIMIT_NPROC` counts the
 * sandbox user's processes in its own user namespace, `RLIMIT_DATA` caps each process's memory.
 * (The kernel exempts uid 0 from `RLIMIT_NPROC`, which is why a root worker wants the cgroup.)
 */
import { mkdirSync, readFileSync, readdirSync, rmdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface Limits {
  processes: number;
  memoryMb: number;
  fileSizeMb: number;
  tmpMb: number;
  /** Disk the workspace may hold, in MB (0: no cap). */
  workspaceMb: number;
}

const V1 = { pids: '/sys/fs/cgroup/pids', memory: '/sys/fs/cgroup/memory' };

/** Per-worker parent cgroups, when this worker can make them. */
export interface CgroupRoot {
  pids: string;
  memory: string | undefined;
}

/** Per-worker cgroups left by workers that are gone (empty ones only: a live call keeps its own). */
function sweepStale(hierarchy: string): void {
  let names: string[];
  try {
    names = readdirSync(hierarchy).filter((n) => /^herald-\d+$/.test(n));
  } catch {
    return;
  }
  for (const name of names) {
    const pid = Number(name.slice('herald-'.length));
    if (pid !== process.pid && isAlive(pid)) continue;
    const dir = join(hierarchy, name);
    try {
      for (const child of readdirSync(dir, { withFileTypes: true }))
        if (child.isDirectory()) rmdirSync(join(dir, child.name));
      rmdirSync(dir);
    } catch {
      // something still runs there
    }
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export function findCgroupRoot(workerTag: string): CgroupRoot | undefined {
  sweepStale(V1.pids);
  sweepStale(V1.memory);
  try {
    const pids = join(V1.pids, `herald-${workerTag}`);
    mkdirSync(pids, { recursive: true });
    readFileSync(join(pids, 'pids.max'), 'utf8');
    let memory: string | undefined = join(V1.memory, `herald-${workerTag}`);
    try {
      mkdirSync(memory, { recursive: true });
      readFileSync(join(memory, 'memory.limit_in_bytes'), 'utf8');
    } catch {
      memory = undefined;
    }
    process.once('exit', () => {
      for (const d of [pids, memory]) if (d) removeDirs([d]);
    });
    return { pids, memory };
  } catch {
    return undefined;
  }
}

export interface CallCgroup {
  /** `cgroup.procs` files the call's first process joins before it starts bubblewrap. */
  procsFiles: string[];
  /** Whether the memory cap was hit during the call. */
  memoryHit(): boolean;
  /** SIGKILL whatever is still in the call's cgroup (repeatedly, so a forking process cannot outrun it). */
  killAll(): void;
  dispose(): void;
}

export function callCgroup(root: CgroupRoot, id: string, limits: Limits): CallCgroup | undefined {
  const dirs: string[] = [];
  try {
    const pids0 = join(root.pids, id);
    mkdirSync(pids0);
    dirs.push(pids0);
    writeFileSync(join(pids0, 'pids.max'), String(limits.processes));
    let mem: string | undefined;
    if (root.memory) {
      mem = join(root.memory, id);
      mkdirSync(mem);
      dirs.push(mem);
      writeFileSync(join(mem, 'memory.limit_in_bytes'), String(limits.memoryMb * 1024 * 1024));
    }
    return {
      procsFiles: dirs.map((d) => join(d, 'cgroup.procs')),
      memoryHit: () => {
        if (!mem) return false;
        try {
          return Number(readFileSync(join(mem, 'memory.failcnt'), 'utf8')) > 0;
        } catch {
          return false;
        }
      },
      killAll: () => {
        for (let round = 0; round < 50; round++) {
          let pids: number[];
          try {
            pids = readFileSync(join(pids0, 'cgroup.procs'), 'utf8').split('\n').filter(Boolean).map(Number);
          } catch {
            return;
          }
          if (pids.length === 0) return;
          for (const pid of pids) {
            try {
              process.kill(pid, 'SIGKILL');
            } catch {
              // already gone
            }
          }
        }
      },
      dispose: () => removeDirs(dirs),
    };
  } catch {
    removeDirs(dirs);
    return undefined;
  }
}

function removeDirs(dirs: readonly string[]): void {
  for (const d of [...dirs].reverse()) {
    try {
      rmdirSync(d);
    } catch {
      // a process of the call is still exiting; an empty cgroup left behind holds nothing
    }
  }
}

/**
 * Shell that sets the rlimits (soft and hard, so the command cannot raise them) inside the sandbox.
 * `ulimit -f` counts 1024-byte blocks in bash, as does `-d`. `fileSizeKb` narrows the file size
 * cap to the room left under the workspace cap; `processes: false` leaves the process count to the
 * call's cgroup (for the sandbox user on the host, `RLIMIT_NPROC` would count every call's processes
 * together).
 */
export function rlimitScript(limits: Limits, o: { fileSizeKb?: number | undefined; processes?: boolean } = {}): string {
  const kb = (mb: number) => mb * 1024;
  return [
    `ulimit -S -H -c 0`,
    `ulimit -S -H -f ${Math.max(0, Math.floor(o.fileSizeKb ?? kb(limits.fileSizeMb)))}`,
    `ulimit -S -H -d ${kb(limits.memoryMb)}`,
    ...(o.processes === false ? [] : [`ulimit -S -H -u ${limits.processes}`]),
  ].join(' && ');
}
