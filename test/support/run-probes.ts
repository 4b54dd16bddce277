/**
 * Runs the sandbox attack corpus through the real `terminal` tool and sandbox, one probe at a time
 * in a fresh copy of the workspace, and judges each one on the host: secrets in its output, changes
 * outside the workspace or to the repository's hooks and config, connections to the listener, files
 * named after the token in the host's /tmp, processes left running. Prints one JSON line per probe.
 *
 * Started by test/integration/sandbox.test.ts as a child process with the planted worker's
 * environment (HOME, HERALD_HOME and the secrets), so the sandbox sees what a real worker's would.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, lstatSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { ToolSandbox } from '../../sandbox/sandbox.js';
import { terminalTool } from '../../activities/tools/terminal.js';
import { loadConfig } from '../../runtime/config.js';
import type { Plant } from './sandbox-probes.js';
import {
  connectionCounter,
  freshWorkspace,
  leaksIn,
  loadProbes,
  secretForms,
  substitute,
  survivors,
  treeState,
} from './sandbox-probes.js';

interface Plan {
  plant: Plant;
  pgPort: number;
  providerPort: number;
  timeoutSeconds: number;
  only?: string[];
  /** Run every `lanes`-th probe starting at `lane` (several runners share the corpus). */
  lane?: number;
  lanes?: number;
}

export interface ProbeVerdict {
  id: string;
  category: string;
  escaped: string[];
  output: string;
  durationMs: number;
}

const plan = JSON.parse(readFileSync(process.argv[2]!, 'utf8')) as Plan;
const { plant } = plan;
const config = loadConfig();
const sandbox = ToolSandbox.create({ config: config.file.sandbox, env: process.env, hidden: [config.home] });
process.stderr.write(`sandbox: ${JSON.stringify(sandbox.status)}\n`);
const tool = terminalTool({ timeoutSeconds: plan.timeoutSeconds, maxOutputChars: 1_000_000 });
const listener = await connectionCounter();
const forms = secretForms(plant);
const watched = [plant.outside, plant.otherWorkspace, plant.realHome, plant.heraldHome];
const gitState = (ws: string) => `${treeState(`${ws}/.git/hooks`)}\n${readFileSync(`${ws}/.git/config`, 'utf8')}`;

/** Host files whose owner and mode no probe may change (through a symlink the worker followed, say). */
const hostFiles = ['/', '/etc', '/etc/passwd', '/etc/hostname', '/usr/bin', '/usr/bin/passwd', '/tmp'].filter((f) =>
  existsSync(f),
);
const hostModes = () =>
  hostFiles.map((f) => `${f} ${statSync(f).uid}:${statSync(f).gid} ${statSync(f).mode.toString(8)}`);
const capBytes = config.file.sandbox.limits.workspaceMb * 1024 * 1024;

/**
 * What a probe left in its workspace that the host would later run or trust: a setuid/setgid file,
 * a device node, a root-owned entry the sandbox made (the workspace folder, `.git` folders and the
 * protected paths are the worker's own), an entry every host user may write, a workspace larger
 * than its disk cap.
 */
function leftBehind(ws: string, template: ReadonlySet<string>): string[] {
  const out: string[] = [];
  let blocks = 0;
  const walk = (dir: string, depth: number) => {
    if (depth > 20) return;
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      return;
    }
    for (const name of names) {
      const p = join(dir, name);
      const st = lstatSync(p, { throwIfNoEntry: false });
      if (!st) continue;
      blocks += st.blocks;
      const rel = relative(ws, p);
      if (st.isSymbolicLink()) continue;
      if ((st.mode & 0o6000) !== 0 && st.isFile()) out.push(`left a setuid/setgid file ${rel}`);
      if (st.isCharacterDevice() || st.isBlockDevice()) out.push(`left a device node ${rel}`);
      if ((st.mode & 0o002) !== 0) out.push(`left ${rel} writable by every host user`);
      const workerOwn =
        name === '.git' || /^(\.git\/(hooks|config)|\.herald-results)(\/|$)/.test(rel) || rel.includes('/.git/hooks');
      // Not one of the template's own files (a blocked command leaves them as they were).
      if (process.getuid?.() === 0 && st.uid === 0 && !workerOwn && !template.has(rel))
        out.push(`left a root-owned ${rel}`);
      if (st.isDirectory()) walk(p, depth + 1);
    }
  };
  walk(ws, 0);
  if (capBytes > 0 && blocks * 512 > capBytes + 64 * 1024 * 1024)
    out.push(`the workspace holds ${Math.round((blocks * 512) / 1048576)} MB, over its cap`);
  return out;
}

/** Git as the user would run it on the host, in the workspace the probe left behind. */
function hostGit(ws: string, args: string[]): void {
  spawnSync('git', args, {
    cwd: ws,
    env: { PATH: process.env.PATH, HOME: plant.realHome },
    timeout: 10_000,
    stdio: 'ignore',
  });
}

/** Relative paths of the template workspace (the worker's own files, as copied for each probe). */
const templatePaths = new Set<string>();
const listTemplate = (dir: string) => {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    templatePaths.add(relative(plant.workspaceTemplate, p));
    if (lstatSync(p).isDirectory()) listTemplate(p);
  }
};
listTemplate(plant.workspaceTemplate);

const probes = loadProbes().filter(
  (p, i) => (!plan.only || plan.only.includes(p.id)) && i % (plan.lanes ?? 1) === (plan.lane ?? 0),
);
/** Host binaries a probe could try to overwrite through /proc/<pid>/exe. */
const binaries = ['/usr/bin/bwrap', '/bin/bash', '/bin/sh'].filter((b) => existsSync(b));
const digest = () => binaries.map((b) => createHash('sha256').update(readFileSync(b)).digest('hex')).join(',');
const binariesBefore = digest();
let ws = '';
for (const [i, probe] of probes.entries()) {
  // The plant/harvest pair must share a workspace; every other probe gets a fresh one.
  if (probe.id !== 'bind-source-symlink-harvest') ws = freshWorkspace(plant, `p${i}`);
  const template = gitState(plant.workspaceTemplate);
  const before = watched.map(treeState);
  const hostBefore = hostModes();
  const connections = listener.count();
  const command = substitute(probe.command, {
    workspace: ws,
    plant,
    pgPort: plan.pgPort,
    providerPort: plan.providerPort,
    listenPort: listener.port,
  });
  const started = Date.now();
  let output: string;
  try {
    output = (
      await tool.handler(
        { command, timeout: plan.timeoutSeconds },
        { cwd: ws, signal: new AbortController().signal, heartbeat: () => {}, sandbox },
      )
    ).content;
  } catch (err) {
    output = `(tool threw: ${(err as Error).message})`;
  }
  const durationMs = Date.now() - started;
  await sleep(50);
  const escaped = leaksIn(output, forms);
  escaped.push(...leftBehind(ws, templatePaths));
  if (hostModes().join('\n') !== hostBefore.join('\n')) escaped.push('changed the owner or mode of a host file');
  watched.forEach((dir, k) => {
    if (treeState(dir) !== before[k]) escaped.push(`changed ${dir}`);
  });
  if (existsSync(`${ws}/.git/config`) && gitState(ws) !== template) escaped.push('changed .git/hooks or .git/config');
  // The user's own git on the host afterwards: nothing the probe left may run (fsmonitor, hooks, aliases).
  hostGit(ws, ['status', '--porcelain']);
  hostGit(ws, ['-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-q', '--allow-empty', '-m', 'probe']);
  watched.forEach((dir, k) => {
    if (treeState(dir) !== before[k]) escaped.push(`host git changed ${dir}`);
  });
  const fired = readdirSync('/tmp').filter((n) => n.startsWith(plant.token));
  if (fired.length) {
    escaped.push(`host git ran planted code (${fired.join(', ')})`);
    for (const n of fired) rmSync(`/tmp/${n}`, { recursive: true, force: true });
  }
  if (listener.count() !== connections) escaped.push(`connected to the host listener`);
  if (probe.category === 'escape' || probe.category === 'proc') {
    if (digest() !== binariesBefore) escaped.push('changed a host binary');
  }
  if (existsSync(`/tmp/${plant.token}`)) escaped.push(`wrote /tmp/${plant.token} on the host`);
  rmSync(`/tmp/${plant.token}`, { recursive: true, force: true });
  const left = survivors(plant.token);
  if (left.length) {
    escaped.push(`left processes running: ${left.join('; ')}`);
    for (const l of left) process.kill(Number(l.split(':')[0]), 'SIGKILL');
  }
  const verdict: ProbeVerdict = { id: probe.id, category: probe.category, escaped, output, durationMs };
  process.stdout.write(`${JSON.stringify(verdict)}\n`);
}
await listener.close();
process.exit(0);
