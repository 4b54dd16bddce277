/**
 * What a working sandbox holds, learned once at worker start: the host's facts, who tools run as,
 * a private runtime folder, the cgroup root, the variables that point toolchains at their folders,
 * and the files every call gets, sealed (git config, seccomp program, network bridge, accounts).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, isAbsolute, join, relative } from 'node:path';
import type { SandboxRunAs } from './bwrap-args.js';
import type { HostFacts } from './host.js';
import { isInside, learnHost } from './host.js';
import type { CgroupRoot } from './limits.js';
import { findCgroupRoot } from './limits.js';
import { BRIDGE_SOURCE } from './network-proxy.js';
import type { SandboxStatus } from './sandbox.js';
import { seccompProgram } from './seccomp.js';
import { SealedFile } from './sealed-file.js';
import type { SandboxIdentity } from './sandbox-user.js';
import { accountFiles, sandboxIdentity } from './sandbox-user.js';

/** HOME inside the sandbox: an empty in-memory folder, never the worker's home. */
export const SANDBOX_HOME = '/home/herald';

/** What a working sandbox holds, learned once at worker start. */
export interface Machine {
  host: HostFacts;
  bwrap: string;
  /** Per-call proxy sockets only: nothing in it is read back. */
  runtimeDir: string;
  cgroups: CgroupRoot | undefined;
  runAs: SandboxRunAs;
  gitconfig: SealedFile | undefined;
  seccomp: SealedFile | undefined;
  bridge: SealedFile;
  /** /etc/passwd and /etc/group naming the sandbox user, when it has no account. */
  accounts: { passwd: SealedFile; group: SealedFile } | undefined;
  /** Variables that point the toolchains at their folders, since HOME is not theirs any more. */
  locators: Record<string, string>;
}

/** Toolchain folders in the worker's home and the variable that tells the tool where its home moved. */
const TOOLCHAIN_HOMES: Record<string, string> = {
  '.pyenv': 'PYENV_ROOT',
  '.cargo': 'CARGO_HOME',
  '.rustup': 'RUSTUP_HOME',
  '.nvm': 'NVM_DIR',
  '.volta': 'VOLTA_HOME',
  '.bun': 'BUN_INSTALL',
  '.deno': 'DENO_INSTALL',
  '.sdkman': 'SDKMAN_DIR',
  '.asdf': 'ASDF_DATA_DIR',
  go: 'GOPATH',
};

/** setpriv (util-linux) drops the launcher to the sandbox user. */
const SETPRIV = ['/usr/bin/setpriv', '/bin/setpriv'];

export function findOnPath(name: string, env: NodeJS.ProcessEnv): string | undefined {
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (!isAbsolute(dir)) continue;
    const p = join(dir, name);
    if (existsSync(p)) return p;
  }
  return undefined;
}

/**
 * The sandbox's global git config: the worker's identity, so `git commit` works inside the empty
 * home; for the sandbox user, every repository is safe (the workspace folder and `.git` keep the
 * user's ownership, which git would otherwise call dubious).
 */
function sandboxGitconfig(env: NodeJS.ProcessEnv, hostUser: boolean): string | undefined {
  const identity = gitIdentity(env);
  const safe = hostUser ? '[safe]\n\tdirectory = *\n' : '';
  return identity || safe ? `${identity ?? ''}${safe}` : undefined;
}

/** The worker's git identity, so `git commit` works inside the sandbox's empty home. */
function gitIdentity(env: NodeJS.ProcessEnv): string | undefined {
  const get = (key: string) => {
    const r = spawnSync('git', ['config', '--global', '--get', key], { env, encoding: 'utf8', timeout: 5000 });
    return r.status === 0 ? r.stdout.trim() : undefined;
  };
  const name = get('user.name');
  const email = get('user.email');
  if (!name && !email) return undefined;
  const esc = (v: string) => JSON.stringify(v);
  return `[user]\n${name ? `\tname = ${esc(name)}\n` : ''}${email ? `\temail = ${esc(email)}\n` : ''}`;
}

export type LearnedMachine =
  { ok: true; machine: Machine; user: NonNullable<SandboxStatus['user']> } | { ok: false; reason: string };

/** Learn the machine for a sandbox that uses `bwrap`, or why the sandbox cannot run here. */
export function learnMachine(env: NodeJS.ProcessEnv, hidden: readonly string[], bwrap: string): LearnedMachine {
  const host = learnHost(env, hidden);
  let runAs: SandboxRunAs = { kind: 'namespace' };
  let user: SandboxStatus['user'] = { kind: 'namespace', uid: host.uid };
  let identity: SandboxIdentity | undefined;
  if (host.uid === 0) {
    const id = sandboxIdentity();
    if (!id.ok) return { ok: false, reason: id.reason };
    if (!SETPRIV.some((p) => existsSync(p)))
      return {
        ok: false,
        reason: 'setpriv (util-linux) is not installed: a root worker cannot drop tools to the sandbox user',
      };
    identity = id.identity;
    runAs = { kind: 'host', uid: identity.uid, gid: identity.gid };
    user = { kind: 'host', ...identity };
  }
  const runtimeDir = mkdtempSync(join(tmpdir(), 'herald-sandbox-'));
  process.once('exit', () => rmSync(runtimeDir, { recursive: true, force: true }));
  const seal = (data: string | Buffer | undefined) => (data === undefined ? undefined : SealedFile.create(data));
  const accounts = identity ? accountFiles(identity, SANDBOX_HOME) : undefined;
  const locators: Record<string, string> = {};
  for (const t of host.toolchains) {
    const name = isInside(host.home, t) ? TOOLCHAIN_HOMES[relative(host.home, t)] : undefined;
    if (name && !env[name]) locators[name] = t;
  }
  const cgroups = host.uid === 0 ? findCgroupRoot(`${process.pid}`) : undefined;
  return {
    ok: true,
    user,
    machine: {
      host,
      bwrap,
      runtimeDir,
      cgroups,
      runAs,
      gitconfig: seal(sandboxGitconfig(env, runAs.kind === 'host')),
      seccomp: seal(seccompProgram()),
      bridge: SealedFile.create(BRIDGE_SOURCE),
      accounts: accounts
        ? { passwd: SealedFile.create(accounts.passwd), group: SealedFile.create(accounts.group) }
        : undefined,
      locators,
    },
  };
}

/** Let go of what a machine holds (a sandbox that failed its self-test). */
export function releaseMachine(m: Machine): void {
  rmSync(m.runtimeDir, { recursive: true, force: true });
  for (const f of [m.gitconfig, m.seccomp, m.bridge, m.accounts?.passwd, m.accounts?.group]) f?.close();
}
