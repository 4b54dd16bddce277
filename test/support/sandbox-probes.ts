/**
 * The sandbox attack corpus (test/fixtures/sandbox/probes.jsonl) and what it needs: a planted
 * machine (secrets in the worker's environment, a fake real home with credentials, a Herald home,
 * a directory outside the workspace, another conversation's workspace, a TCP listener that counts
 * connections) and a judge that decides from the output and the host whether a probe got out.
 *
 * `node --import tsx test/support/sandbox-probes.ts <plan.json>` runs every probe through the real
 * `terminal` tool and sandbox in this process — the integration test starts it as a child process
 * whose environment is the planted worker's, so HOME and the secrets are really the worker's.
 */
import { randomBytes } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import type { Server } from 'node:net';
import { join, relative } from 'node:path';
import { PROJECT_ROOT } from '../../runtime/paths.js';

export interface Probe {
  id: string;
  category: string;
  command: string;
  goal: string;
}

export function loadProbes(): Probe[] {
  return readFileSync(join(PROJECT_ROOT, 'test/fixtures/sandbox/probes.jsonl'), 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as Probe);
}

const token = (n = 12) => randomBytes(n).toString('hex');

/** The planted machine: every path absolute on the host, every secret a fresh random value. */
export interface Plant {
  root: string;
  workspaceTemplate: string;
  outside: string;
  otherWorkspace: string;
  heraldHome: string;
  realHome: string;
  token: string;
  /** Environment variables with secret values the worker holds. */
  secretEnv: Record<string, string>;
  /** Secrets kept in files (home credentials, Herald home, the other workspace). */
  fileSecrets: Record<string, string>;
}

export function plantMachine(root: string): Plant {
  const p = (...parts: string[]) => join(root, ...parts);
  const secretEnv = {
    OPENAI_API_KEY: `sk-test-${token(20)}`,
    KEY_A: `pool-${token(16)}`,
    PGPASSWORD: `pg-${token(12)}`,
    AWS_ACCESS_KEY_ID: `AKIA${randomBytes(8).toString('hex').toUpperCase()}`,
    AWS_SECRET_ACCESS_KEY: token(20),
    GH_PAT: `ghp_${token(18)}`,
    HERALD_EXTRA_SECRET: `extra-${token(12)}`,
  };
  const fileSecrets = {
    ssh: `ssh-${token(16)}`,
    aws: `awsfile-${token(12)}`,
    netrc: `netrc-${token(12)}`,
    gitCredentials: `gitcred-${token(12)}`,
    gh: `ghhosts-${token(12)}`,
    heraldHome: `home-${token(12)}`,
    other: `other-${token(12)}`,
    outside: `outside-${token(12)}`,
  };
  const write = (path: string, text: string) => {
    mkdirSync(join(path, '..'), { recursive: true });
    writeFileSync(path, text);
  };
  const realHome = p('real-home');
  write(
    join(realHome, '.ssh/id_ed25519'),
    `-----BEGIN OPENSSH PRIVATE KEY-----\n${fileSecrets.ssh}\n-----END OPENSSH PRIVATE KEY-----\n`,
  );
  write(join(realHome, '.aws/credentials'), `[default]\naws_secret_access_key = ${fileSecrets.aws}\n`);
  write(join(realHome, '.netrc'), `machine example.com login me password ${fileSecrets.netrc}\n`);
  write(join(realHome, '.git-credentials'), `https://me:${fileSecrets.gitCredentials}@example.com\n`);
  write(join(realHome, '.config/gh/hosts.yml'), `github.com:\n  oauth_token: ${fileSecrets.gh}\n`);
  write(join(realHome, '.bashrc'), '# the real bashrc\n');
  const heraldHome = p('herald-home');
  write(join(heraldHome, 'keys.txt'), `token ${fileSecrets.heraldHome}\n`);
  const otherWorkspace = p('other-ws');
  write(join(otherWorkspace, 'secret.txt'), `${fileSecrets.other}\n`);
  const outside = p('outside');
  write(join(outside, 'canary.txt'), `${fileSecrets.outside}\n`);
  const workspaceTemplate = p('ws-template');
  write(join(workspaceTemplate, 'README.md'), '# a project\n');
  write(join(workspaceTemplate, 'src/app.js'), 'console.log("hello");\n');
  execFileSync('git', ['init', '-q', workspaceTemplate]);
  return {
    root,
    workspaceTemplate,
    outside,
    otherWorkspace,
    heraldHome,
    realHome,
    token: token(8),
    secretEnv,
    fileSecrets,
  };
}

/** A fresh copy of the template workspace (git repository included). */
export function freshWorkspace(plant: Plant, name: string): string {
  const ws = join(plant.root, 'ws', name);
  rmSync(ws, { recursive: true, force: true });
  cpSync(plant.workspaceTemplate, ws, { recursive: true, verbatimSymlinks: true });
  return ws;
}

export function substitute(
  command: string,
  v: { workspace: string; plant: Plant; pgPort: number; providerPort: number; listenPort: number },
): string {
  return command
    .replaceAll('{{WORKSPACE}}', v.workspace)
    .replaceAll('{{OUTSIDE}}', v.plant.outside)
    .replaceAll('{{OTHER_WORKSPACE}}', v.plant.otherWorkspace)
    .replaceAll('{{HERALD_HOME}}', v.plant.heraldHome)
    .replaceAll('{{REAL_HOME}}', v.plant.realHome)
    .replaceAll('{{PG_PORT}}', String(v.pgPort))
    .replaceAll('{{PROVIDER_PORT}}', String(v.providerPort))
    .replaceAll('{{LISTEN_PORT}}', String(v.listenPort))
    .replaceAll('{{TOKEN}}', v.plant.token);
}

/** Every secret value, with the encodings a probe might print it in. */
export function secretForms(plant: Plant, extra: readonly string[] = []): Array<{ name: string; form: string }> {
  const out: Array<{ name: string; form: string }> = [];
  const all = {
    ...plant.secretEnv,
    ...Object.fromEntries(Object.entries(plant.fileSecrets)),
    ...Object.fromEntries(extra.map((e, i) => [`extra${i}`, e])),
  };
  for (const [name, value] of Object.entries(all)) {
    out.push({ name, form: value });
    out.push({ name: `${name} (base64)`, form: Buffer.from(value).toString('base64').replace(/=+$/, '') });
    out.push({ name: `${name} (hex)`, form: Buffer.from(value).toString('hex') });
  }
  return out;
}

/** Secrets, redaction marks of them, or ESCAPED in a text: the reasons it shows a leak. */
export function leaksIn(text: string, forms: ReadonlyArray<{ name: string; form: string }>): string[] {
  const found = forms.filter((f) => text.includes(f.form)).map((f) => f.name);
  if (/^ESCAPED\b/m.test(text)) found.push('ESCAPED');
  const marks = text.match(/\[REDACTED:[A-Za-z0-9_]+\]/g);
  if (marks) found.push(...new Set(marks));
  return found;
}

/** A TCP listener on loopback that counts connections (none may come from the sandbox). */
export async function connectionCounter(): Promise<{ port: number; count(): number; close(): Promise<void> }> {
  let n = 0;
  const server: Server = createServer((s) => {
    n++;
    s.destroy();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const port = (server.address() as { port: number }).port;
  return { port, count: () => n, close: () => new Promise((r) => server.close(() => r())) };
}

/** A listing of a tree (paths, sizes, modes, contents of small files): compared before and after. */
export function treeState(dir: string): string {
  if (!existsSync(dir)) return '(missing)';
  const lines: string[] = [];
  const root = dir;
  const walk = (d: string) => {
    for (const name of readdirSync(d).sort()) {
      const path = join(d, name);
      const st = statSync(path, { throwIfNoEntry: false });
      if (!st) continue;
      const content = st.isFile() && st.size < 65_536 ? readFileSync(path, 'utf8') : '';
      lines.push(`${relative(root, path)} ${st.mode.toString(8)} ${st.size} ${content}`);
      if (st.isDirectory()) walk(path);
    }
  };
  walk(dir);
  return lines.join('\n');
}

/** Host processes whose command line holds the token (survivors of a call). */
export function survivors(tokenText: string): string[] {
  const out: string[] = [];
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
      if (cmdline.includes(tokenText) && Number(pid) !== process.pid) out.push(`${pid}: ${cmdline.slice(0, 200)}`);
    } catch {
      // gone
    }
  }
  return out;
}
