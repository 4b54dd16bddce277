/**
 * How one sandboxed call starts: the descriptors onto the sealed files it gets, and the launcher
 * script bubblewrap runs (resource limits, the drop to the sandbox user, the network bridge).
 */
import { closeSync } from 'node:fs';
import { join } from 'node:path';
import type { SandboxConfig } from '../common/sandbox-policy.js';
import { rlimitScript } from './limits.js';
import type { Machine } from './machine.js';
import { SANDBOX_HOME } from './machine.js';
import type { SealedFile } from './sealed-file.js';

export interface CallFiles {
  /** Descriptors to pass, in order, as fd 3, 4, … of the spawned process. */
  list: number[];
  seccomp: number | undefined;
  data: Array<{ fd: number; target: string }>;
  close(): void;
}

/** Where the network bridge's source is inside the sandbox. */
export const BRIDGE_PATH = '/run/herald/bridge.cjs';

/** Fresh descriptors onto the sealed files for one call, numbered as the spawned process sees them (3 onwards). */
export function openCallFiles(m: Machine, withBridge: boolean): CallFiles {
  const list: number[] = [];
  const add = (f: SealedFile | undefined) => {
    if (!f) return undefined;
    list.push(f.open());
    return 2 + list.length;
  };
  const seccomp = add(m.seccomp);
  const data: Array<{ fd: number; target: string }> = [];
  const put = (f: SealedFile | undefined, target: string) => {
    const fd = add(f);
    if (fd !== undefined) data.push({ fd, target });
  };
  put(m.gitconfig, join(SANDBOX_HOME, '.gitconfig'));
  if (withBridge) put(m.bridge, BRIDGE_PATH);
  put(m.accounts?.passwd, '/etc/passwd');
  put(m.accounts?.group, '/etc/group');
  let closed = false;
  return {
    list,
    seccomp,
    data,
    close: () => {
      if (closed) return;
      closed = true;
      for (const fd of list) closeSync(fd);
    },
  };
}

/**
 * The launcher bubblewrap starts: resource limits, then (for the sandbox user on the host) the
 * home handed over and the drop to the sandbox user with no groups and no capabilities, then
 * inherited descriptors closed, the network bridge started, and the command.
 */
export function launcherCommand(
  m: Machine,
  limitsConfig: SandboxConfig['limits'],
  workspace: string,
  bridge: string,
  rlimits: { fileSizeKb: number | undefined; processes: boolean },
  command: string,
): string[] {
  const limits = rlimitScript(limitsConfig, rlimits);
  // For the sandbox user, bubblewrap (root without capabilities) may not enter the workspace: the user does.
  const asUser =
    `umask 002; cd -- ${shellQuote(workspace)} || exit 125; ` +
    `for f in /proc/self/fd/*; do n=\${f##*/}; case $n in 0|1|2) ;; *) eval "exec $n>&-" 2>/dev/null ;; esac; done; ` +
    `${bridge}exec /bin/bash -c "$1"`;
  let script: string;
  if (m.runAs.kind === 'host') {
    const { uid, gid } = m.runAs;
    script =
      `${limits} || { echo 'herald sandbox: could not set resource limits' >&2; exit 125; }; ` +
      `chown ${uid}:${gid} ${SANDBOX_HOME} && ` +
      `exec setpriv --reuid=${uid} --regid=${gid} --clear-groups --inh-caps=-all --bounding-set=-all -- ` +
      `/bin/bash -c ${shellQuote(asUser)} herald-sandbox "$1"`;
  } else {
    script = `${limits} || { echo 'herald sandbox: could not set resource limits' >&2; exit 125; }; ${asUser.replace(/^umask 002; cd -- .*? \|\| exit 125; /, '')}`;
  }
  return ['/bin/bash', '-c', script, 'herald-sandbox', command];
}

function shellQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}
