/**
 * Git for the checkpoint store (docs/checkpoints.md): a shadow repository of Herald's own, under the
 * Herald home, with the workspace as its work tree and an index file of its own. Nothing of the
 * user's is read or written: no system, global or user configuration (the guard's isolated
 * environment), the shadow repository's own configuration only, hooks pointed at `/dev/null`, no
 * filesystem monitor, no replace objects, and the user's `.git` folder is never part of a snapshot
 * (git never adds a path with a `.git` component). The workspace's `.gitignore` files are honoured,
 * as git always honours them; its `.gitattributes` cannot convert or filter content, because the
 * shadow repository's `info/attributes` (which git reads last) unsets every converting attribute.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { isolatedGitEnv } from '../sandbox/git-config.js';

export interface ShadowRepo {
  gitDir: string;
  workTree: string;
}

/** Settings on every command line: they win over any file git might read. */
const SAFE_SETTINGS = [
  'core.hooksPath=/dev/null',
  'core.fsmonitor=false',
  'core.autocrlf=false',
  'core.safecrlf=false',
  'core.symlinks=true',
  'core.quotePath=false',
  'core.splitIndex=false',
  'core.untrackedCache=true',
  'safe.directory=*',
  'gc.auto=0',
  'maintenance.auto=false',
  'diff.external=',
  'commit.gpgSign=false',
];

/** Read last by git: no content a snapshot stores or restores is converted by the workspace's attributes. */
const ATTRIBUTES = '* -text -eol -ident -filter -working-tree-encoding -crlf\n';

export class GitFailed extends Error {
  constructor(
    readonly args: readonly string[],
    readonly status: number | null,
    readonly stderr: string,
  ) {
    super(`git ${args[0] ?? ''} failed (${status ?? 'killed'}): ${stderr.trim().slice(0, 300)}`);
    this.name = 'GitFailed';
  }
}

export interface GitRun {
  stdout: Buffer;
  status: number | null;
}

/** The largest output of one git command kept (a patch is cut to far less by its caller). */
const MAX_OUTPUT = 64 * 1024 * 1024;

/** Run git on the shadow repository; `ok` lists the exit codes that are not failures. */
export function git(
  repo: ShadowRepo,
  args: readonly string[],
  o: { input?: string | Buffer; ok?: readonly number[]; timeoutMs?: number; indexFile?: string } = {},
): Promise<GitRun> {
  const env = {
    ...isolatedGitEnv(),
    GIT_DIR: repo.gitDir,
    GIT_WORK_TREE: repo.workTree,
    GIT_INDEX_FILE: o.indexFile ?? join(repo.gitDir, 'index'),
    GIT_NO_REPLACE_OBJECTS: '1',
    GIT_TERMINAL_PROMPT: '0',
    GIT_OPTIONAL_LOCKS: '0',
    GIT_LITERAL_PATHSPECS: '1',
    GIT_AUTHOR_NAME: 'Herald',
    GIT_AUTHOR_EMAIL: 'herald@localhost',
    GIT_COMMITTER_NAME: 'Herald',
    GIT_COMMITTER_EMAIL: 'herald@localhost',
  };
  const full = [...SAFE_SETTINGS.flatMap((s) => ['-c', s]), ...args];
  return new Promise((resolve, reject) => {
    const child = spawn('git', full, { cwd: repo.workTree, env, stdio: ['pipe', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    let size = 0;
    let err = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), o.timeoutMs ?? 120_000);
    child.stdout.on('data', (b: Buffer) => {
      size += b.length;
      if (size <= MAX_OUTPUT) out.push(b);
    });
    child.stderr.on('data', (b: Buffer) => {
      if (err.length < 4000) err += b.toString('utf8');
    });
    child.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.on('close', (status) => {
      clearTimeout(timer);
      if (status === 0 || (status !== null && o.ok?.includes(status))) resolve({ stdout: Buffer.concat(out), status });
      else reject(new GitFailed(args, status, err));
    });
    child.stdin.on('error', () => {});
    child.stdin.end(o.input ?? '');
  });
}

export async function gitText(repo: ShadowRepo, args: readonly string[]): Promise<string> {
  return (await git(repo, args)).stdout.toString('utf8').trim();
}

/** Create the shadow repository the first time (idempotent). */
export async function ensureShadowRepo(repo: ShadowRepo): Promise<void> {
  if (existsSync(join(repo.gitDir, 'HEAD'))) return;
  mkdirSync(repo.gitDir, { recursive: true, mode: 0o700 });
  await git(repo, ['init', '-q', '--template=']);
  // Each snapshot is one `git commit` onto the latest state Herald saw (checkpoints/snapshot.ts).
  await git(repo, ['symbolic-ref', 'HEAD', 'refs/herald/latest']);
  mkdirSync(join(repo.gitDir, 'info'), { recursive: true });
  writeFileSync(join(repo.gitDir, 'info', 'attributes'), ATTRIBUTES);
  writeFileSync(join(repo.gitDir, 'info', 'exclude'), '');
}

/** The commit a ref names, or undefined. */
export async function resolveRef(repo: ShadowRepo, ref: string): Promise<string | undefined> {
  const r = await git(repo, ['rev-parse', '--verify', '-q', `${ref}^{commit}`], { ok: [1] });
  const id = r.stdout.toString('utf8').trim();
  return r.status === 0 && id ? id : undefined;
}

/** Split NUL-separated output. */
export function nulList(out: Buffer): string[] {
  return out
    .toString('utf8')
    .split('\0')
    .filter((s) => s !== '');
}
