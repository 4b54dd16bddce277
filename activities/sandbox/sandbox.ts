/**
 * The tool sandbox (docs/tool-sandbox.md): every process a tool starts goes through `ToolSandbox.prepare`,
 * which returns how to start it — inside bubblewrap when the sandbox is on, else plainly (with a
 * warning when that was not the user's choice). Built once per worker: it learns the machine,
 * checks that bubblewrap really works here, builds the files every call needs (seccomp program,
 * network bridge, git identity) once and holds them open with no path a sandbox could reach (see
 * sealed-file.ts), and keeps a private runtime folder for the per-call proxy sockets only. A root
 * worker's tools run as the sandbox user (sandbox-user.ts), never as root.
 *
 * Why bubblewrap directly and not `@anthropic-ai/sandbox-runtime`: that package needs Node 22.12
 * (Herald supports Node 20), shows the whole filesystem unless told otherwise (Herald shows only
 * system folders, toolchains and the workspace), and leaves environment, identity, resource caps
 * and process lifetime to the caller — the parts Herald needs most. Its design (a proxy on a Unix
 * socket bridged into a network-less namespace) is the one used here.
 */
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  chmodSync,
  chownSync,
  closeSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  rmSync,
  statfsSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, isAbsolute, join, relative, resolve } from 'node:path';
import type { NetworkPolicy, SandboxConfig, SandboxMode } from '../../common/sandbox-policy.js';
import { describeNetwork } from '../../common/sandbox-policy.js';
import type { Logger } from '../../runtime/logger.js';
import { bwrapArgs } from './bwrap-args.js';
import type { CallPlan, SandboxRunAs } from './bwrap-args.js';
import { toolEnvironment } from './environment.js';
import type { HostFacts, Mask } from './host.js';
import { HOME_CREDENTIALS, isInside, learnHost } from './host.js';
import type { CgroupRoot } from './limits.js';
import { callCgroup, findCgroupRoot, rlimitScript } from './limits.js';
import type { AllowlistProxy } from './network-proxy.js';
import { BRIDGE_SOURCE, SANDBOX_PROXY_PORT, SANDBOX_PROXY_SOCKET, startAllowlistProxy } from './network-proxy.js';
import { explainWalls } from './explain.js';
import type { SandboxDenial } from '../metrics.js';
import { seccompProgram } from './seccomp.js';
import { protectedMounts } from './protected-mounts.js';
import { PROJECT_ROOT } from '../../runtime/paths.js';
import { overBudget, settleGit, snapshotGit } from './git-guard.js';
import { SealedFile } from './sealed-file.js';
import type { SandboxIdentity } from './sandbox-user.js';
import { accountFiles, sandboxIdentity } from './sandbox-user.js';
import type { WalkResult } from './workspace-walk.js';
import { walkWorkspace } from './workspace-walk.js';

export interface SandboxStatus {
  mode: SandboxMode;
  /** Whether tool processes run inside the sandbox. */
  active: boolean;
  /** Why not, when they do not (or what is missing for a cap). */
  reason?: string;
  /** How the caps are enforced: per-call cgroups, or rlimits only. */
  caps?: 'cgroup' | 'rlimit';
  network: string;
  /** Who tools run as: the worker's own uid behind a user namespace, or the sandbox user on the host. */
  user?: { kind: 'namespace'; uid: number } | ({ kind: 'host' } & SandboxIdentity);
}

export interface ProcessOutcome {
  output: string;
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** How to start one command, and what to say about how it ended. */
export interface PreparedProcess {
  file: string;
  args: string[];
  env: Record<string, string>;
  /** Extra file descriptors for the spawned process (fd 3 onwards): seccomp program, bridge, git identity. */
  fds: number[];
  /** A line to put first in the tool's result (the unsandboxed warning), if any. */
  banner: string | undefined;
  /**
   * Told once the process runs, with a way to kill it and everything it started: the sandbox then
   * watches the workspace's disk use and stops the command when it goes over the cap.
   */
  started?: (kill: () => void) => void;
  /**
   * Release what the call held (proxy, cgroup) and undo what must not outlive it; returns notes on
   * sandbox limits the command ran into, for the model to read. Call it once, whatever happened
   * (no outcome when the command never finished).
   */
  finish(outcome: ProcessOutcome | undefined): Promise<string[]>;
}

export type Prepared = { ok: true; process: PreparedProcess } | { ok: false; error: string };

export interface PrepareRequest {
  /** The shell command (run with `bash -c`). */
  command: string;
  /** The conversation's workspace (a real path). */
  workspace: string;
  /** The conversation's network, already narrowed from the worker's (defaults to the worker's). */
  network?: NetworkPolicy;
}

export const UNSANDBOXED_WARNING =
  '[WARNING: no sandbox — this command ran with the worker’s own access to files, processes and network';

function findOnPath(name: string, env: NodeJS.ProcessEnv): string | undefined {
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (!isAbsolute(dir)) continue;
    const p = join(dir, name);
    if (existsSync(p)) return p;
  }
  return undefined;
}

function expandHome(p: string, home: string): string {
  return p.startsWith('~/') ? join(home, p.slice(2)) : resolve(p);
}

/** Masks for what a visible tree holds but no tool may see. */
function treeMasks(trees: readonly string[], hidden: readonly string[], home: string): Mask[] {
  const out: Mask[] = [];
  const add = (p: string) => {
    const st = lstatSync(p, { throwIfNoEntry: false });
    if (st && !st.isSymbolicLink()) out.push({ path: p, dir: st.isDirectory() });
  };
  for (const h of hidden) if (trees.some((t) => isInside(t, h))) add(h);
  if (trees.some((t) => isInside(t, home))) for (const c of HOME_CREDENTIALS) add(join(home, c));
  return out;
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

export interface SandboxOptions {
  config: SandboxConfig;
  env: NodeJS.ProcessEnv;
  /** Folders no tool may ever see (the Herald home). */
  hidden: readonly string[];
  log?: Logger;
}

/** HOME inside the sandbox: an empty in-memory folder, never the worker's home. */
export const SANDBOX_HOME = '/home/herald';

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

/** What a working sandbox holds, learned once at worker start. */
interface Machine {
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

/** setpriv (util-linux) drops the launcher to the sandbox user. */
const SETPRIV = ['/usr/bin/setpriv', '/bin/setpriv'];

const MB = 1024 * 1024;
const toMb = (bytes: number) => Math.ceil(bytes / MB);

export class ToolSandbox {
  /** Told each wall a command ran into (the worker counts them as metrics). */
  onDenial: ((kind: SandboxDenial) => void) | undefined;

  private constructor(
    readonly status: SandboxStatus,
    private readonly config: SandboxConfig,
    private readonly env: NodeJS.ProcessEnv,
    private readonly hidden: readonly string[],
    private readonly machine?: Machine,
  ) {}

  /** The folder holding this sandbox's runtime files, if it keeps one (no workspace may reach it). */
  get runtimeFolder(): string | undefined {
    return this.machine?.runtimeDir;
  }

  static create(o: SandboxOptions): ToolSandbox {
    const { config, env } = o;
    const hidden = o.hidden.map((h) => resolve(h));
    if (config.mode === 'off')
      return new ToolSandbox(
        { mode: 'off', active: false, reason: 'sandbox.mode is off', network: 'unrestricted' },
        config,
        env,
        hidden,
      );
    const unavailable = (reason: string) => {
      o.log?.[config.mode === 'required' ? 'error' : 'warn'](
        { reason },
        config.mode === 'required'
          ? 'sandbox.mode is required but the sandbox cannot run here: tools that start processes will refuse'
          : 'NO SANDBOX: tool commands will run unsandboxed, with the worker’s own access',
      );
      return new ToolSandbox(
        { mode: config.mode, active: false, reason, network: 'unrestricted' },
        config,
        env,
        hidden,
      );
    };
    if (process.platform !== 'linux')
      return unavailable(`no sandbox for ${process.platform} yet (bubblewrap is Linux only)`);
    const bwrap =
      config.bwrapPath ?? findOnPath('bwrap', env) ?? (existsSync('/usr/bin/bwrap') ? '/usr/bin/bwrap' : undefined);
    if (!bwrap || !existsSync(bwrap))
      return unavailable('bubblewrap (bwrap) is not installed: apt-get install bubblewrap');

    const host = learnHost(env, hidden);
    let runAs: SandboxRunAs = { kind: 'namespace' };
    let user: SandboxStatus['user'] = { kind: 'namespace', uid: host.uid };
    let identity: SandboxIdentity | undefined;
    if (host.uid === 0) {
      const id = sandboxIdentity();
      if (!id.ok) return unavailable(id.reason);
      if (!SETPRIV.some((p) => existsSync(p)))
        return unavailable(
          'setpriv (util-linux) is not installed: a root worker cannot drop tools to the sandbox user',
        );
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
    const sandbox = new ToolSandbox(
      {
        mode: config.mode,
        active: true,
        caps: cgroups ? 'cgroup' : 'rlimit',
        network: describeNetwork(config.network),
        user,
      },
      config,
      env,
      hidden,
      {
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
    );
    const check = sandbox.selfTest();
    if (check) {
      rmSync(runtimeDir, { recursive: true, force: true });
      const mm = sandbox.machine!;
      for (const f of [mm.gitconfig, mm.seccomp, mm.bridge, mm.accounts?.passwd, mm.accounts?.group]) f?.close();
      return unavailable(check);
    }
    if (host.uid === 0 && !cgroups)
      o.log?.warn(
        'sandbox: no writable cgroup for a root worker, so the process cap cannot be enforced (the other caps are)',
      );
    return sandbox;
  }

  /** Run `true` in a throwaway workspace with the real arguments and launcher: the sandbox works here, or why not. */
  private selfTest(): string | undefined {
    const m = this.machine!;
    const ws = mkdtempSync(join(m.runtimeDir, 'selftest-'));
    // As a workspace is after its first call: the owner's, shared with the sandbox group.
    if (m.runAs.kind === 'host') {
      chownSync(ws, 0, m.runAs.gid);
      chmodSync(ws, 0o2770);
    }
    const fds = this.openFiles(false);
    try {
      const plan = this.plan({ workspace: ws, network: 'none', files: [], fds, readOnly: [] });
      const launcher = this.launcher(ws, '', { fileSizeKb: undefined, processes: true }, 'true');
      const r = spawnSync(m.bwrap, bwrapArgs(m.host, plan, launcher), {
        env: this.environment({}),
        encoding: 'utf8',
        timeout: 10_000,
        stdio: ['ignore', 'pipe', 'pipe', ...fds.list],
      });
      if (r.status === 0) return undefined;
      const why = (r.stderr || r.error?.message || `exit ${r.status}`).trim().split('\n')[0];
      return `bubblewrap does not work here: ${why}`;
    } finally {
      fds.close();
      rmSync(ws, { recursive: true, force: true });
    }
  }

  /** Fresh descriptors onto the sealed files for one call, numbered as the spawned process sees them (3 onwards). */
  private openFiles(withBridge: boolean): CallFiles {
    const m = this.machine!;
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
  private launcher(
    workspace: string,
    bridge: string,
    rlimits: { fileSizeKb: number | undefined; processes: boolean },
    command: string,
  ): string[] {
    const m = this.machine!;
    const limits = rlimitScript(this.config.limits, rlimits);
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

  private environment(extra: Record<string, string>): Record<string, string> {
    return toolEnvironment(this.env, {
      home: SANDBOX_HOME,
      passthrough: this.config.env,
      extra: { ...this.machine!.locators, ...extra },
    });
  }

  private plan(o: {
    workspace: string;
    network: CallPlan['network'];
    files: CallPlan['files'];
    fds: CallFiles;
    readOnly: readonly string[];
  }): CallPlan {
    const m = this.machine!;
    const home = m.host.home;
    const readablePaths = this.config.readablePaths.map((p) => expandHome(p, home));
    const writablePaths = this.config.writablePaths.map((p) => expandHome(p, home));
    const trees = [o.workspace, ...readablePaths, ...writablePaths];
    return {
      workspace: o.workspace,
      cwd: m.runAs.kind === 'host' ? '/' : o.workspace,
      network: o.network,
      protectedMounts: { pinned: [], readOnly: [...o.readOnly] },
      readablePaths,
      writablePaths,
      masks: treeMasks(trees, this.hidden, home),
      tmpMb: this.config.limits.tmpMb,
      home: SANDBOX_HOME,
      ...(o.fds.seccomp !== undefined ? { seccompFd: o.fds.seccomp } : {}),
      files: o.files,
      dataFiles: o.fds.data,
      runAs: m.runAs,
    };
  }

  /** The workspace cap in bytes, or undefined when it is off. */
  private get capBytes(): number | undefined {
    const mb = this.config.limits.workspaceMb;
    return mb > 0 ? mb * MB : undefined;
  }

  /**
   * Room left under the workspace cap, in bytes (negative when over), or undefined when there is no
   * cap. The file tools ask before they write.
   */
  async workspaceRoom(workspace: string): Promise<{ room: number; usedMb: number; capMb: number } | undefined> {
    const cap = this.capBytes;
    if (cap === undefined) return undefined;
    const used = await walkWorkspace(workspace, { skip: this.hidden });
    return { room: cap - used.bytes, usedMb: toMb(used.bytes), capMb: this.config.limits.workspaceMb };
  }

  /** How to start `bash -c command` for a tool. */
  async prepare(req: PrepareRequest): Promise<Prepared> {
    const m = this.machine;
    if (!this.status.active || !m) {
      if (this.status.mode === 'required')
        return {
          ok: false,
          error: `Refused: sandbox.mode is required and the sandbox cannot run here (${this.status.reason}).`,
        };
      return {
        ok: true,
        process: {
          file: 'bash',
          args: ['-c', req.command],
          env: toolEnvironment(this.env, { home: this.env.HOME ?? '/', passthrough: this.config.env }),
          fds: [],
          banner: this.status.mode === 'auto' ? `${UNSANDBOXED_WARNING}: ${this.status.reason}]` : undefined,
          finish: () => Promise.resolve([]),
        },
      };
    }
    if (
      req.workspace === '/' ||
      m.host.systemRoots.some((r) => isInside(req.workspace, r.path)) ||
      // Herald's own install: a root worker's walk would hand its files to the sandbox user.
      isInside(req.workspace, PROJECT_ROOT)
    )
      return {
        ok: false,
        error: `Refused: the workspace ${req.workspace} contains system folders; give the conversation a project folder.`,
      };

    try {
      return await this.prepareSandboxed(req, m);
    } catch (err) {
      return {
        ok: false,
        error: `Refused: the sandbox could not be prepared in ${req.workspace} (${(err as Error).message ?? String(err)}); nothing ran.`,
      };
    }
  }

  private async prepareSandboxed(req: PrepareRequest, m: Machine): Promise<Prepared> {
    // The git guard's look before the call; a workspace too big to look at is refused (fails closed).
    const git = snapshotGit(req.workspace, this.config.gitGuard);
    if (!git.scan.complete)
      return { ok: false, error: `Refused: ${overBudget(git.maxEntries)}; raise it or work in a smaller folder.` };
    const network = req.network ?? this.config.network;
    const id = randomBytes(8).toString('hex');
    let proxy: AllowlistProxy | undefined;
    let callDir: string | undefined;
    let fds: CallFiles | undefined;
    const files: Array<{ source: string; target: string }> = [];
    const extra: Record<string, string> = {};
    let bridge = '';
    const release = async () => {
      fds?.close();
      await proxy?.close();
      if (callDir) rmSync(callDir, { recursive: true, force: true });
    };
    try {
      if (typeof network === 'object') {
        callDir = join(m.runtimeDir, id);
        mkdirSync(callDir, { mode: 0o700 });
        const socket = join(callDir, 'proxy.sock');
        proxy = await startAllowlistProxy(socket, network.allow);
        // The sandbox user connects to it (the folder around it stays the worker's alone).
        if (m.runAs.kind === 'host') chmodSync(socket, 0o666);
        files.push({ source: socket, target: SANDBOX_PROXY_SOCKET });
        const url = `http://127.0.0.1:${SANDBOX_PROXY_PORT}`;
        for (const k of ['HTTP_PROXY', 'HTTPS_PROXY', 'ALL_PROXY', 'http_proxy', 'https_proxy', 'all_proxy'])
          extra[k] = url;
        extra.NO_PROXY = extra.no_proxy = 'localhost,127.0.0.1,::1';
        bridge =
          `${JSON.stringify(process.execPath)} ${BRIDGE_PATH} & ` +
          `for _ in $(seq 300); do (exec 3<>/dev/tcp/127.0.0.1/${SANDBOX_PROXY_PORT}) 2>/dev/null && break; sleep 0.01; done; `;
      }
      const mounts = protectedMounts(req.workspace, this.config.protectedPaths, git.scan.dotGitDirs);
      const hostUser = m.runAs.kind === 'host' ? m.runAs : undefined;
      const cap = this.capBytes;
      // Never handed over or measured: the Herald home, protected paths, the worker's credentials.
      const skip = [...this.hidden, ...mounts.readOnly, ...HOME_CREDENTIALS.map((c) => join(m.host.home, c))];
      // Before: the sandbox user's workspace (root worker), and the room left under the cap.
      const before =
        hostUser || cap !== undefined
          ? await walkWorkspace(req.workspace, { ...(hostUser ? { adopt: hostUser } : {}), skip })
          : undefined;
      const limits = this.config.limits;
      let fileSizeKb: number | undefined;
      const notes: string[] = [];
      if (cap !== undefined && before) {
        const room = cap - before.bytes;
        if (room < limits.fileSizeMb * MB) fileSizeKb = Math.max(0, Math.floor(room / 1024));
        if (room <= 0)
          notes.push(
            `[sandbox: the workspace holds ${toMb(before.bytes)} MB, over its disk cap of ${limits.workspaceMb} MB (sandbox.limits.workspaceMb): nothing can be written until files are deleted]`,
          );
      }
      fds = this.openFiles(bridge !== '');
      const plan = this.plan({
        workspace: req.workspace,
        network: network === 'all' ? 'all' : typeof network === 'object' ? 'proxy' : 'none',
        files,
        fds,
        readOnly: mounts.readOnly,
      });
      plan.protectedMounts.pinned.push(...mounts.pinned);
      const cgroup = m.cgroups ? callCgroup(m.cgroups, id, limits) : undefined;
      // The sandbox user's process count is system-wide: the call's cgroup counts it instead, when there is one.
      const inner = this.launcher(req.workspace, bridge, { fileSizeKb, processes: !(hostUser && cgroup) }, req.command);
      let file = m.bwrap;
      let args = bwrapArgs(m.host, plan, inner);
      if (cgroup) {
        // The first process joins the call's cgroup before bubblewrap starts, so every descendant is counted.
        const joinCgroup = cgroup.procsFiles.map((f) => `echo $$ > ${f}`).join(' && ');
        args = ['-c', `${joinCgroup} && exec "$@"`, 'herald-cgroup', file, ...args];
        file = '/bin/sh';
      }
      const callFds = fds;
      let finished = false;
      const watch =
        cap !== undefined && before && before.bytes < cap
          ? new DiskWatch(req.workspace, cap, before.bytes, skip)
          : undefined;
      return {
        ok: true,
        process: {
          file,
          args,
          env: this.environment(extra),
          fds: callFds.list,
          banner: undefined,
          ...(watch ? { started: (kill: () => void) => watch.start(kill) } : {}),
          finish: async (outcome) => {
            if (finished) return [];
            finished = true;
            callFds.close();
            watch?.stop();
            const overBefore = cap !== undefined && before !== undefined && before.bytes >= cap;
            const walls = (
              outcome
                ? explainWalls(outcome, {
                    limits,
                    network,
                    denied: proxy ? [...proxy.denied] : [],
                    memoryHit: cgroup?.memoryHit() ?? false,
                    ...(fileSizeKb !== undefined && before && before.bytes < (cap ?? 0)
                      ? { workspace: { capMb: limits.workspaceMb, usedMb: toMb(before.bytes) } }
                      : {}),
                  })
                : []
            ).filter((w) => !(overBefore && w.kind === 'file_size')); // the note above already says why
            for (const w of walls) this.onDenial?.(w.kind);
            await proxy?.close();
            cgroup?.killAll();
            cgroup?.dispose();
            if (callDir) rmSync(callDir, { recursive: true, force: true });
            const after = await this.settleWorkspace(req.workspace, skip, before);
            const stopped = watch?.stopped
              ? [
                  `[sandbox: stopped the command: the workspace went over its disk cap of ${limits.workspaceMb} MB (sandbox.limits.workspaceMb)]`,
                ]
              : [];
            return [...settleGit(req.workspace, git), ...notes, ...stopped, ...walls.map((w) => w.note), ...after];
          },
        },
      };
    } catch (err) {
      await release();
      throw err;
    }
  }

  /** After a call: setuid/setgid bits gone, and a note when the workspace went over its cap. */
  private async settleWorkspace(workspace: string, skip: string[], before: WalkResult | undefined): Promise<string[]> {
    const cap = this.capBytes;
    if (!before) return [];
    let after: WalkResult;
    try {
      after = await walkWorkspace(workspace, { strip: true, skip });
    } catch {
      return [];
    }
    const notes: string[] = [];
    if (after.stripped)
      notes.push(
        `[sandbox: removed setuid/setgid/sticky bits or write access for all users from ${after.stripped} workspace entries]`,
      );
    if (cap !== undefined && after.bytes > cap && before.bytes <= cap)
      notes.push(
        `[sandbox: the workspace now holds ${toMb(after.bytes)} MB, over its disk cap of ${this.config.limits.workspaceMb} MB (sandbox.limits.workspaceMb): commands can only read and delete until files are removed]`,
      );
    return notes;
  }
}

/**
 * Watches a running command's disk use: the file size cap alone bounds each file, not how many a
 * command writes. Ten times a second the filesystem's used space is read (cheap); when it grew by
 * more than the room left, and at least once a second anyway, the workspace is measured, and a
 * command that took it over the cap is killed.
 */
class DiskWatch {
  stopped = false;
  private timer: NodeJS.Timeout | undefined;
  private busy = false;

  constructor(
    private readonly workspace: string,
    private readonly cap: number,
    private readonly usedBefore: number,
    private readonly skip: readonly string[],
  ) {}

  private fsUsed(): number | undefined {
    try {
      const st = statfsSync(this.workspace);
      return (st.blocks - st.bfree) * st.bsize;
    } catch {
      return undefined;
    }
  }

  start(kill: () => void): void {
    const base = this.fsUsed() ?? 0;
    const room = this.cap - this.usedBefore;
    let lastWalk = Date.now();
    this.timer = setInterval(() => {
      if (this.busy || this.stopped) return;
      const now = this.fsUsed();
      // The filesystem's numbers are shared with everything else on it (another process freeing
      // space hides this command's growth): the workspace itself is also measured every few seconds.
      const grew = now !== undefined && now - base > room;
      if (!grew && Date.now() - lastWalk < DISK_WALK_EVERY_MS) return;
      lastWalk = Date.now();
      this.busy = true;
      walkWorkspace(this.workspace, { skip: this.skip })
        .then((r) => {
          if (r.bytes > this.cap && this.timer) {
            this.stopped = true;
            kill();
          }
        })
        .catch(() => {})
        .finally(() => (this.busy = false));
    }, DISK_WATCH_MS);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }
}

const DISK_WATCH_MS = 100;
const DISK_WALK_EVERY_MS = 1_000;

interface CallFiles {
  /** Descriptors to pass, in order, as fd 3, 4, … of the spawned process. */
  list: number[];
  seccomp: number | undefined;
  data: Array<{ fd: number; target: string }>;
  close(): void;
}

/** Where the network bridge's source is inside the sandbox. */
const BRIDGE_PATH = '/run/herald/bridge.cjs';

function shellQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}
