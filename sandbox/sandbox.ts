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
import { chmodSync, chownSync, existsSync, lstatSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { NetworkPolicy, SandboxConfig, SandboxMode } from '../common/sandbox-policy.js';
import { describeNetwork } from '../common/sandbox-policy.js';
import type { Logger } from '../runtime/logger.js';
import { bwrapArgs } from './bwrap-args.js';
import type { CallPlan } from './bwrap-args.js';
import type { CallFiles } from './call-launch.js';
import { BRIDGE_PATH, launcherCommand, openCallFiles } from './call-launch.js';
import { DiskWatch } from './disk-watch.js';
import { toolEnvironment } from './environment.js';
import type { Mask } from './host.js';
import { HOME_CREDENTIALS, isInside } from './host.js';
import { callCgroup } from './limits.js';
import type { Machine } from './machine.js';
import { SANDBOX_HOME, findOnPath, learnMachine, releaseMachine } from './machine.js';
import type { AllowlistProxy } from './network-proxy.js';
import { SANDBOX_PROXY_PORT, SANDBOX_PROXY_SOCKET, startAllowlistProxy } from './network-proxy.js';
import { explainWalls } from './explain.js';
import type { SandboxDenial } from '../activities/metrics.js';
import { protectedMounts } from './protected-mounts.js';
import { PROJECT_ROOT } from '../runtime/paths.js';
import { overBudget, settleGit, snapshotGit } from './git-guard.js';
import type { SandboxIdentity } from './sandbox-user.js';
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

export interface SandboxOptions {
  config: SandboxConfig;
  env: NodeJS.ProcessEnv;
  /** Folders no tool may ever see (the Herald home). */
  hidden: readonly string[];
  log?: Logger;
}

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

    const learned = learnMachine(env, hidden, bwrap);
    if (!learned.ok) return unavailable(learned.reason);
    const { machine } = learned;
    const sandbox = new ToolSandbox(
      {
        mode: config.mode,
        active: true,
        caps: machine.cgroups ? 'cgroup' : 'rlimit',
        network: describeNetwork(config.network),
        user: learned.user,
      },
      config,
      env,
      hidden,
      machine,
    );
    const check = sandbox.selfTest();
    if (check) {
      releaseMachine(machine);
      return unavailable(check);
    }
    if (machine.host.uid === 0 && !machine.cgroups)
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
    const fds = openCallFiles(m, false);
    try {
      const plan = this.plan({ workspace: ws, network: 'none', files: [], fds, readOnly: [] });
      const launcher = launcherCommand(
        m,
        this.config.limits,
        ws,
        '',
        { fileSizeKb: undefined, processes: true },
        'true',
      );
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
      fds = openCallFiles(m, bridge !== '');
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
      const inner = launcherCommand(
        m,
        this.config.limits,
        req.workspace,
        bridge,
        { fileSizeKb, processes: !(hostUser && cgroup) },
        req.command,
      );
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
