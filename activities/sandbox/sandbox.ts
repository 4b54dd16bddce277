/**
 * The tool sandbox (SPEC §7.8): every process a tool starts goes through `ToolSandbox.prepare`,
 * which returns how to start it — inside bubblewrap when the sandbox is on, else plainly (with a
 * warning when that was not the user's choice). Built once per worker: it learns the machine,
 * checks that bubblewrap really works here, and keeps a private runtime folder for the network
 * bridge, the proxy sockets and a git identity file.
 *
 * Why bubblewrap directly and not `@anthropic-ai/sandbox-runtime`: that package needs Node 22.12
 * (Herald supports Node 20), shows the whole filesystem unless told otherwise (Herald shows only
 * system folders, toolchains and the workspace), and leaves environment, identity, resource caps
 * and process lifetime to the caller — the parts Herald needs most. Its design (a proxy on a Unix
 * socket bridged into a network-less namespace) is the one used here.
 */
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, existsSync, lstatSync, mkdirSync, mkdtempSync, openSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, isAbsolute, join, relative, resolve } from 'node:path';
import type { NetworkPolicy, SandboxConfig, SandboxMode } from '../../common/sandbox-policy.js';
import { describeNetwork } from '../../common/sandbox-policy.js';
import type { Logger } from '../../runtime/logger.js';
import { bwrapArgs } from './bwrap-args.js';
import type { CallPlan } from './bwrap-args.js';
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
import { settleGit, snapshotGit } from './git-guard.js';

export interface SandboxStatus {
  mode: SandboxMode;
  /** Whether tool processes run inside the sandbox. */
  active: boolean;
  /** Why not, when they do not (or what is missing for a cap). */
  reason?: string;
  /** How the caps are enforced: per-call cgroups, or rlimits only. */
  caps?: 'cgroup' | 'rlimit';
  network: string;
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
  /** Extra file descriptors for the spawned process (fd 3 onwards): the seccomp filter. */
  fds: number[];
  /** A line to put first in the tool's result (the unsandboxed warning), if any. */
  banner: string | undefined;
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
  runtimeDir: string;
  cgroups: CgroupRoot | undefined;
  gitconfig: string | undefined;
  seccomp: string | undefined;
  /** Variables that point the toolchains at their folders, since HOME is not theirs any more. */
  locators: Record<string, string>;
}

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
    const runtimeDir = mkdtempSync(join(tmpdir(), 'herald-sandbox-'));
    process.once('exit', () => rmSync(runtimeDir, { recursive: true, force: true }));
    writeFileSync(join(runtimeDir, 'bridge.cjs'), BRIDGE_SOURCE);
    const write = (name: string, data: string | Buffer | undefined) => {
      if (data === undefined) return undefined;
      writeFileSync(join(runtimeDir, name), data);
      return join(runtimeDir, name);
    };
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
      },
      config,
      env,
      hidden,
      {
        host,
        bwrap,
        runtimeDir,
        cgroups,
        gitconfig: write('gitconfig', gitIdentity(env)),
        seccomp: write('seccomp.bpf', seccompProgram()),
        locators,
      },
    );
    const check = sandbox.selfTest();
    if (check) {
      rmSync(runtimeDir, { recursive: true, force: true });
      return unavailable(check);
    }
    if (host.uid === 0 && !cgroups)
      o.log?.warn(
        'sandbox: no writable cgroup for a root worker, so the process cap cannot be enforced (the other caps are)',
      );
    return sandbox;
  }

  /** Run `true` in a throwaway workspace with the real arguments: the sandbox works here, or why not. */
  private selfTest(): string | undefined {
    const m = this.machine!;
    const ws = mkdtempSync(join(m.runtimeDir, 'selftest-'));
    const seccomp = m.seccomp ? openSync(m.seccomp, 'r') : undefined;
    try {
      const plan = this.plan(ws, 'none', [], seccomp === undefined ? undefined : 3);
      const r = spawnSync(m.bwrap, bwrapArgs(m.host, plan, ['/bin/sh', '-c', 'true']), {
        env: this.environment({}),
        encoding: 'utf8',
        timeout: 10_000,
        stdio: ['ignore', 'pipe', 'pipe', ...(seccomp === undefined ? [] : [seccomp])],
      });
      if (r.status === 0) return undefined;
      const why = (r.stderr || r.error?.message || `exit ${r.status}`).trim().split('\n')[0];
      return `bubblewrap does not work here: ${why}`;
    } finally {
      if (seccomp !== undefined) closeSync(seccomp);
      rmSync(ws, { recursive: true, force: true });
    }
  }

  private environment(extra: Record<string, string>): Record<string, string> {
    return toolEnvironment(this.env, {
      home: SANDBOX_HOME,
      passthrough: this.config.env,
      extra: { ...this.machine!.locators, ...extra },
    });
  }

  private plan(
    workspace: string,
    network: CallPlan['network'],
    files: CallPlan['files'],
    seccompFd: number | undefined,
  ): CallPlan {
    const home = this.machine!.host.home;
    const readablePaths = this.config.readablePaths.map((p) => expandHome(p, home));
    const writablePaths = this.config.writablePaths.map((p) => expandHome(p, home));
    const trees = [workspace, ...readablePaths, ...writablePaths];
    const gitconfig = this.machine!.gitconfig;
    return {
      workspace,
      cwd: workspace,
      network,
      protectedMounts: protectedMounts(workspace, this.config.protectedPaths),
      readablePaths,
      writablePaths,
      masks: treeMasks(trees, this.hidden, home),
      tmpMb: this.config.limits.tmpMb,
      home: SANDBOX_HOME,
      ...(seccompFd !== undefined ? { seccompFd } : {}),
      files: [...(gitconfig ? [{ source: gitconfig, target: join(SANDBOX_HOME, '.gitconfig') }] : []), ...files],
    };
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
    if (req.workspace === '/' || m.host.systemRoots.some((r) => isInside(req.workspace, r.path)))
      return {
        ok: false,
        error: `Refused: the workspace ${req.workspace} contains system folders; give the conversation a project folder.`,
      };

    const network = req.network ?? this.config.network;
    const id = randomBytes(8).toString('hex');
    let proxy: AllowlistProxy | undefined;
    let callDir: string | undefined;
    const files: Array<{ source: string; target: string }> = [];
    const extra: Record<string, string> = {};
    let bridge = '';
    if (typeof network === 'object') {
      callDir = join(m.runtimeDir, id);
      mkdirSync(callDir, { mode: 0o700 });
      const socket = join(callDir, 'proxy.sock');
      proxy = await startAllowlistProxy(socket, network.allow);
      files.push(
        { source: socket, target: SANDBOX_PROXY_SOCKET },
        { source: join(m.runtimeDir, 'bridge.cjs'), target: '/run/herald/bridge.cjs' },
      );
      const url = `http://127.0.0.1:${SANDBOX_PROXY_PORT}`;
      for (const k of ['HTTP_PROXY', 'HTTPS_PROXY', 'ALL_PROXY', 'http_proxy', 'https_proxy', 'all_proxy'])
        extra[k] = url;
      extra.NO_PROXY = extra.no_proxy = 'localhost,127.0.0.1,::1';
      bridge =
        `${JSON.stringify(process.execPath)} /run/herald/bridge.cjs & ` +
        `for _ in $(seq 300); do (exec 3<>/dev/tcp/127.0.0.1/${SANDBOX_PROXY_PORT}) 2>/dev/null && break; sleep 0.01; done; `;
    }
    const git = snapshotGit(req.workspace);
    // The filter reaches bubblewrap as file descriptor 3 of the spawned process.
    const seccomp = m.seccomp ? openSync(m.seccomp, 'r') : undefined;
    const plan = this.plan(
      req.workspace,
      network === 'all' ? 'all' : typeof network === 'object' ? 'proxy' : 'none',
      files,
      seccomp === undefined ? undefined : 3,
    );
    const limits = this.config.limits;
    // Descriptors above 2 (the seccomp filter, anything the worker inherited) are closed before the command starts.
    const launcher =
      `${rlimitScript(limits)} || { echo 'herald sandbox: could not set resource limits' >&2; exit 125; }; ` +
      `for f in /proc/self/fd/*; do n=\${f##*/}; case $n in 0|1|2) ;; *) eval "exec $n>&-" 2>/dev/null ;; esac; done; ` +
      `${bridge}exec /bin/bash -c "$1"`;
    const inner = ['/bin/bash', '-c', launcher, 'herald-sandbox', req.command];
    const cgroup = m.cgroups ? callCgroup(m.cgroups, id, limits) : undefined;
    let file = m.bwrap;
    let args = bwrapArgs(m.host, plan, inner);
    if (cgroup) {
      // The first process joins the call's cgroup before bubblewrap starts, so every descendant is counted.
      const join = cgroup.procsFiles.map((f) => `echo $$ > ${f}`).join(' && ');
      args = ['-c', `${join} && exec "$@"`, 'herald-cgroup', file, ...args];
      file = '/bin/sh';
    }
    let finished = false;
    return {
      ok: true,
      process: {
        file,
        args,
        env: this.environment(extra),
        fds: seccomp === undefined ? [] : [seccomp],
        banner: undefined,
        finish: async (outcome) => {
          if (finished) return [];
          finished = true;
          if (seccomp !== undefined) closeSync(seccomp);
          const walls = outcome
            ? explainWalls(outcome, {
                limits,
                network,
                denied: proxy ? [...proxy.denied] : [],
                memoryHit: cgroup?.memoryHit() ?? false,
              })
            : [];
          for (const w of walls) this.onDenial?.(w.kind);
          const notes = walls.map((w) => w.note);
          await proxy?.close();
          cgroup?.killAll();
          cgroup?.dispose();
          if (callDir) rmSync(callDir, { recursive: true, force: true });
          return [...settleGit(req.workspace, git), ...notes];
        },
      },
    };
  }
}
