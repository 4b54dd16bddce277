/**
 * Telling a live process from a dead one whose pid was reused. A pid alone is not an identity:
 * the kernel hands freed pids out again, so a pid file left by a crash may name an unrelated
 * process. On Linux a process is its pid plus its start time (field 22 of /proc/<pid>/stat, in
 * clock ticks since boot), which no later process with the same pid can share.
 */
import { readFileSync } from 'node:fs';

export interface ProcessIdentity {
  pid: number;
  /** Start time from /proc (Linux); undefined where /proc is not available. */
  startTime?: string | undefined;
}

/** The start time of `pid` as /proc records it, or undefined (no such process, or no /proc). */
export function processStartTime(pid: number): string | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  return startTimeFromStat(stat);
}

/**
 * Field 22 of a /proc/<pid>/stat line. The second field (the command name, in parentheses) may
 * itself hold spaces and parentheses, so fields are counted from the last ')'.
 */
export function startTimeFromStat(stat: string): string | undefined {
  const close = stat.lastIndexOf(')');
  if (close < 0) return undefined;
  // After ')': field 3 (state) is the first; field 22 is the 20th.
  const fields = stat
    .slice(close + 1)
    .trim()
    .split(/\s+/);
  return fields[19];
}

/** This process, as another process would later check it. */
export function selfIdentity(): ProcessIdentity {
  return { pid: process.pid, startTime: processStartTime(process.pid) };
}

/** Whether a process with this pid exists (signal 0 checks without signalling). */
export function pidExists(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: it exists but belongs to another user.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Whether the process `id` names is still running: its pid exists and, when a start time was
 * recorded and /proc can tell, it started at that same moment (not a newer process with its pid).
 */
export function isAlive(
  id: ProcessIdentity,
  probe: { exists: (pid: number) => boolean; startTime: (pid: number) => string | undefined } = {
    exists: pidExists,
    startTime: processStartTime,
  },
): boolean {
  if (!probe.exists(id.pid)) return false;
  if (id.startTime === undefined) return true;
  const now = probe.startTime(id.pid);
  return now === undefined || now === id.startTime;
}

/** The command line of `pid` (Linux), or undefined. */
export function processCommandLine(pid: number): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ').trim();
  } catch {
    return undefined;
  }
}
