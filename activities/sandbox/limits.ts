/**
 * Resource caps for one sandboxed call (SPEC §7.8): processes, memory, file size; wall time is the
 * tool's timeout. Where the worker may create cgroups (a root worker with the v1 `pids` and `memory`
 * hierarchies writable) each call gets its own cgroup, which caps the whole process tree. Otherwise
 * the caps are rlimits set inside the sandbox before the command starts: `RLIMIT_NPROC` counts the
 * sandbox user's processes in its own user namespace, `RLIMIT_DATA` caps each process's memory.
 * (The kernel exempts uid 0 from `RLIMIT_NPROC`, which is why a root worker wants the cgroup.)
 */
import { mkdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface Limits {
  processes: number;
  memoryMb: number;
  fileSizeMb: number;
}

const V1 = { pids: '/sys/fs/cgroup/pids', memory: '/sys/fs/cgroup/memory' };

/** Per-worker parent cgroups, when this worker can make them. */
export interface CgroupRoot {
  pids: string;
  memory: string | undefined;
}

export function findCgroupRoot(workerTag: string): CgroupRoot | undefined {
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
  dispose(): void;
}

export function callCgroup(root: CgroupRoot, id: string, limits: Limits): CallCgroup | undefined {
  const dirs: string[] = [];
  try {
    const pids = join(root.pids, id);
    mkdirSync(pids);
    dirs.push(pids);
    writeFileSync(join(pids, 'pids.max'), String(limits.processes));
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
 * `ulimit -f` counts 1024-byte blocks in bash, as does `-d`.
 */
export function rlimitScript(limits: Limits): string {
  const kb = (mb: number) => mb * 1024;
  return [
    `ulimit -S -H -c 0`,
    `ulimit -S -H -f ${kb(limits.fileSizeMb)}`,
    `ulimit -S -H -d ${kb(limits.memoryMb)}`,
    `ulimit -S -H -u ${limits.processes}`,
  ].join(' && ');
}
