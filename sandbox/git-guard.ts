/**
 * What the read-only mounts cannot stop in a repository, checked around each sandboxed call: the
 * user's own `git` on the host must never run a program that a sandboxed command planted. Before
 * the call, every repository in the workspace is found (git-repos.ts, any depth, no folder
 * skipped) and everything in it that would make git run a program is listed: configuration keys
 * read with git's own parser (git-config.ts, git-run-keys.ts) in the repository's config, its
 * worktree configs, its common directory's, every file they include and its `.gitmodules`;
 * executable hooks; `.git` files, links, `commondir` files and includes that lead out of the
 * workspace. After the call the same list is made again, and whatever is on it that was not there
 * before is neutralised before the user's git can read it: a key is removed (the file is rewritten
 * in git's plainest form and re-parsed to prove it), a hook loses its execute bits, a link out of
 * the workspace or a file git cannot parse is renamed aside. `.git/commondir` files of repositories
 * that existed before are restored as they were. What the user had before the call is left alone.
 *
 * The walk has a budget (`sandbox.gitGuard.maxEntries`); when the workspace is larger the guard
 * cannot know what a command planted, so the sandbox refuses to start commands there (fail closed)
 * and a call that grows the workspace past it says so in its result.
 */
import { randomBytes } from 'node:crypto';
import {
  closeSync,
  constants,
  fchmodSync,
  fstatSync,
  lstatSync,
  openSync,
  readFileSync,
  readdirSync,
  realpathSync,
  lchownSync,
  renameSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { basename, dirname, isAbsolute, join, relative, resolve } from 'node:path';
import type { ConfigEntry } from './git-config.js';
import { fileSignature, parseBytes, readConfig, renderConfig, splitKey } from './git-config.js';
import { DEFAULT_GIT_GUARD_MAX_ENTRIES } from '../common/sandbox-policy.js';
import { findRepositories } from './git-repos.js';
import type { RepoScan } from './git-repos.js';
import { isInside } from './host.js';
import { holdDir } from './workspace-dir.js';
import { RUN_KEY_MARKS, runsProgram } from './git-run-keys.js';

type Fix =
  | { kind: 'drop'; file: string; entry: ConfigEntry }
  | { kind: 'aside'; path: string }
  | { kind: 'unexec'; path: string };

interface Finding {
  /** The same thing before and after the call has the same id. */
  id: string;
  fix: Fix;
  /** What it is, for the note (`core.fsmonitor`, `hooks/pre-commit`, `a .git file pointing outside`). */
  what: string;
}

export interface GitGuardOptions {
  maxEntries?: number;
}

export interface GitSnapshot {
  scan: RepoScan;
  ids: Set<string>;
  /** `commondir` files of the repositories found before the call, and what they held. */
  commondirs: Map<string, Commondir>;
  maxEntries: number;
}

/** Git stops following includes at this depth (and fails); the guard follows as far. */
const MAX_INCLUDE_DEPTH = 10;
const MAX_NOTES = 20;
const MAX_NOTE_PART = 200;
/**
 * Git processes started by the check after a call, for configurations it has not parsed before
 * (about a second's worth): a command that plants thousands of them must not stall the worker, so
 * past it a new configuration is not parsed but renamed aside. The check before a call has no such
 * limit: it reads what the user has (each file once; parses are cached), and nothing a command
 * planted survives unparsed to it.
 */
const MAX_PARSES_AFTER = 300;
/** Suffix of what the guard renames aside: git never reads a file of that name. */
export const ASIDE_SUFFIX = '.herald-disabled';

/** A `commondir` as it was: its identity (type, inode, size, times) and, for a small file, its text. */
interface Commondir {
  id: string;
  text: string | undefined;
}

function commondirState(p: string): Commondir {
  const st = lstatSync(p, { throwIfNoEntry: false });
  return {
    id: st ? `${st.mode}:${st.ino}:${st.size}:${st.mtimeMs}:${st.ctimeMs}` : 'missing',
    text: readSmall(p, 65_536),
  };
}

function readSmall(p: string, limit = 4096): string | undefined {
  try {
    const st = lstatSync(p);
    if (!st.isFile() || st.size > limit) return undefined;
    return readFileSync(p, 'utf8');
  } catch {
    return undefined;
  }
}

function real(p: string): string | undefined {
  try {
    return realpathSync(p);
  } catch {
    return undefined;
  }
}

type Named = { kind: 'path'; path: string } | { kind: 'none' } | { kind: 'odd'; why: string; sig: string };

/**
 * The path a gitfile (`gitdir: <path>`) or a `commondir` names, read as git reads it: through a
 * link, the whole file, up to a NUL, without trailing CR and LF. `none` when git would not use it;
 * `odd` when the guard will not follow it (a link out of the workspace, larger than 64 KB).
 */
function namedIn(workspace: string, p: string, prefix: string): Named {
  const st = statSync(p, { throwIfNoEntry: false });
  if (!st?.isFile()) return { kind: 'none' };
  const to = real(p);
  const sig = `${st.dev}:${st.ino}:${st.size}:${st.mtimeMs}:${st.ctimeMs}`;
  if (!to || !isInside(workspace, to)) return { kind: 'odd', why: 'a link out of the workspace', sig };
  if (st.size > 65_536) return { kind: 'odd', why: 'larger than 64 KB', sig };
  let text: string;
  try {
    text = readFileSync(to, 'utf8');
  } catch {
    return { kind: 'none' };
  }
  const nul = text.indexOf('\0');
  if (nul >= 0) text = text.slice(0, nul);
  if (!text.startsWith(prefix)) return { kind: 'none' };
  const path = text.slice(prefix.length).replace(/[\r\n]+$/, '');
  return path ? { kind: 'path', path } : { kind: 'none' };
}

/** Where a path leads once links are followed; for a path that does not exist yet, its parent's real path. */
function whereItLeads(p: string): string {
  return real(p) ?? join(real(dirname(p)) ?? dirname(p), basename(p));
}

/** Everything in the workspace's repositories that would make git run a program. */
function survey(workspace: string, scan: RepoScan, maxParses: number): { findings: Finding[]; gitDirs: string[] } {
  const findings: Finding[] = [];
  const gitDirs = new Set<string>([...scan.dotGitDirs, ...scan.bareDirs]);
  const worktreeRoots = new Set<string>(scan.dotGitDirs.map((d) => dirname(d)));
  const outside = (path: string, what: string, target: string) =>
    findings.push({ id: `outside:${path}->${target}`, fix: { kind: 'aside', path }, what });

  for (const p of scan.pointers) {
    worktreeRoots.add(dirname(p));
    const st = lstatSync(p, { throwIfNoEntry: false });
    if (!st) continue;
    let target: string | undefined;
    if (st.isSymbolicLink()) target = whereItLeads(p);
    else {
      const named = namedIn(workspace, p, 'gitdir: ');
      if (named.kind === 'none') continue; // git refuses a gitfile it cannot read
      if (named.kind === 'odd') {
        findings.push({
          id: `odd:${p}:${named.sig}`,
          fix: { kind: 'aside', path: p },
          what: `a .git file (${named.why})`,
        });
        continue;
      }
      target = whereItLeads(isAbsolute(named.path) ? named.path : resolve(dirname(p), named.path));
    }
    if (!isInside(workspace, target)) outside(p, 'a .git file or link leading out of the workspace', target);
    else gitDirs.add(target);
  }

  const examined = new Set<string>();
  const budget = { left: maxParses };
  /** One configuration file; `via` is the include entry that led here, if any. */
  const examine = (file: string, gitDir: string, depth: number, via?: { file: string; entry: ConfigEntry }) => {
    const target = whereItLeads(file);
    if (!isInside(workspace, target)) {
      if (via)
        findings.push({
          id: `include-out:${via.file}:${via.entry.key}=${via.entry.value}`,
          fix: { kind: 'drop', ...via },
          what: `${via.entry.key} (leads out of the workspace)`,
        });
      else if (lstatSync(file, { throwIfNoEntry: false }))
        outside(file, `${basename(file)} linked out of the workspace`, target);
      return;
    }
    if (examined.has(target)) return;
    examined.add(target);
    const read = readConfig(target, { marks: RUN_KEY_MARKS, budget });
    if (!read.ok) {
      if (read.why === 'missing') return;
      const id = `unreadable:${target}:${fileSignature(target) ?? read.why}`;
      if (via)
        findings.push({
          id,
          fix: { kind: 'drop', ...via },
          what: `${via.entry.key} (includes a file git cannot read: ${read.why})`,
        });
      else findings.push({ id, fix: { kind: 'aside', path: target }, what: `${basename(target)} (${read.why})` });
      return;
    }
    for (const entry of read.entries) {
      const { section, name } = splitKey(entry.key.toLowerCase());
      if ((section === 'include' || section === 'includeif') && name === 'path') {
        // Followed whatever its condition: the guard does not guess which branch or folder will match.
        // A relative path starts at the including file's folder: as git names that file, and where
        // it really is (they differ when the file is a link); both are followed.
        const v = entry.value ?? '';
        if (v === '' || depth >= MAX_INCLUDE_DEPTH) continue;
        const nexts = v.startsWith('~')
          ? ['/nonexistent-home']
          : isAbsolute(v)
            ? [v]
            : [...new Set([resolve(dirname(file), v), resolve(dirname(target), v)])];
        for (const next of nexts) examine(next, gitDir, depth + 1, { file: target, entry });
        continue;
      }
      if (runsProgram(entry, { gitDir, workspace }))
        findings.push({
          id: `key:${target}:${entry.key}=${entry.value}`,
          fix: { kind: 'drop', file: target, entry },
          what: entry.key,
        });
    }
  };

  const hooksSeen = new Set<string>();
  for (const g of gitDirs) {
    let common = g;
    const named = namedIn(workspace, join(g, 'commondir'), '');
    if (named.kind === 'odd')
      findings.push({
        id: `odd:${join(g, 'commondir')}:${named.sig}`,
        fix: { kind: 'aside', path: join(g, 'commondir') },
        what: `a commondir (${named.why})`,
      });
    else if (named.kind === 'path') {
      const c = whereItLeads(isAbsolute(named.path) ? named.path : resolve(g, named.path));
      if (!isInside(workspace, c)) outside(join(g, 'commondir'), 'a commondir leading out of the workspace', c);
      else common = c;
    }
    for (const f of new Set([join(common, 'config'), join(g, 'config.worktree'), join(common, 'config.worktree')]))
      examine(f, g, 0);
    for (const hooks of new Set([join(common, 'hooks'), join(g, 'hooks')])) {
      const dir = whereItLeads(hooks);
      if (hooksSeen.has(dir)) continue;
      hooksSeen.add(dir);
      if (!isInside(workspace, dir)) {
        if (lstatSync(hooks, { throwIfNoEntry: false })) outside(hooks, 'hooks linked out of the workspace', dir);
        continue;
      }
      let names: string[] = [];
      try {
        names = readdirSync(dir);
      } catch {
        continue;
      }
      for (const name of names) {
        if (name.endsWith('.sample') || name.endsWith(ASIDE_SUFFIX)) continue;
        const p = join(dir, name);
        const st = lstatSync(p, { throwIfNoEntry: false });
        if (!st) continue;
        const what = `hooks/${name}`;
        if (!st.isFile())
          findings.push({ id: `hook:${p}:${st.mode}:${st.ino}`, fix: { kind: 'aside', path: p }, what });
        else if (st.mode & 0o111)
          findings.push({ id: `hook:${p}:${fileSignature(p)}:${st.mode}`, fix: { kind: 'unexec', path: p }, what });
      }
    }
  }
  // `.gitmodules` beside each working tree: git ignores `update = !cmd` there, but a later
  // `git submodule init` by an older git copied it; removed all the same.
  for (const root of worktreeRoots) {
    const f = join(root, '.gitmodules');
    if (lstatSync(f, { throwIfNoEntry: false })) examine(f, join(root, '.git'), MAX_INCLUDE_DEPTH);
  }
  return { findings, gitDirs: [...gitDirs] };
}

export function snapshotGit(workspaceAsGiven: string, options: GitGuardOptions = {}): GitSnapshot {
  const workspace = real(workspaceAsGiven) ?? workspaceAsGiven;
  const maxEntries = options.maxEntries ?? DEFAULT_GIT_GUARD_MAX_ENTRIES;
  const scan = findRepositories(workspace, maxEntries);
  const { findings, gitDirs } = survey(workspace, scan, Infinity);
  return {
    scan,
    ids: new Set(findings.map((f) => f.id)),
    commondirs: new Map(gitDirs.map((g) => [join(g, 'commondir'), commondirState(join(g, 'commondir'))])),
    maxEntries,
  };
}

/** The sentence a refusal or a note uses when the workspace is larger than the walk's budget. */
export function overBudget(maxEntries: number): string {
  return (
    `the workspace holds more than ${maxEntries.toLocaleString('en')} files and folders, more than the git guard ` +
    `checks for planted git configuration (sandbox.gitGuard.maxEntries)`
  );
}

/** Rename aside, never over something else: `<name>.herald-disabled[-<random>]`. */
function putAside(workspace: string, path: string): string {
  const dir = holdDir(workspace, dirname(path));
  try {
    let to = `${basename(path)}${ASIDE_SUFFIX}`;
    if (lstatSync(dir.at(to), { throwIfNoEntry: false })) to = `${to}-${randomBytes(4).toString('hex')}`;
    renameSync(dir.at(basename(path)), dir.at(to));
    return to;
  } finally {
    dir.close();
  }
}

/** Rewrite a configuration file without `drop`, proving the result with git; renames it aside when it cannot. */
function dropKeys(workspace: string, file: string, drop: readonly ConfigEntry[]): 'rewritten' | 'aside' | 'gone' {
  const dir = holdDir(workspace, dirname(file));
  try {
    const name = basename(file);
    const read = readConfig(dir.at(name), { cached: false });
    if (!read.ok && read.why === 'missing') return 'gone';
    const same = (a: ConfigEntry, b: ConfigEntry) => a.key === b.key && a.value === b.value;
    const kept = read.ok ? read.entries.filter((e) => !drop.some((d) => same(d, e))) : [];
    const text = renderConfig(kept);
    const check = parseBytes(Buffer.from(text));
    const proven =
      read.ok && check.ok && check.entries.length === kept.length && check.entries.every((e, i) => same(e, kept[i]!));
    if (!proven) {
      putAside(workspace, file);
      return 'aside';
    }
    // Written beside the file and renamed over it: a link in its place is replaced, never followed.
    const was = lstatSync(dir.at(name));
    const mode = was.mode & 0o666;
    const tmp = `.${name}.herald-${randomBytes(4).toString('hex')}`;
    writeFileSync(dir.at(tmp), text, { mode, flag: 'wx' });
    // The rewritten file keeps its owner: a root worker leaves no root-owned file in the workspace.
    keepOwner(dir.at(tmp), was.uid, was.gid);
    renameSync(dir.at(tmp), dir.at(name));
    return 'rewritten';
  } finally {
    dir.close();
  }
}

/** Clear a hook's execute bits through a descriptor opened without following links. */
function unexec(workspace: string, path: string): void {
  const dir = holdDir(workspace, dirname(path));
  try {
    const fd = openSync(dir.at(basename(path)), constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    try {
      const st = fstatSync(fd);
      if (st.isFile()) fchmodSync(fd, st.mode & 0o1666);
    } finally {
      closeSync(fd);
    }
  } finally {
    dir.close();
  }
}

/** Put a `commondir` back as it was before the call (the changed one is renamed aside). */
function restore(workspace: string, path: string, was: string | undefined): void {
  if (lstatSync(path, { throwIfNoEntry: false })) putAside(workspace, path);
  if (was === undefined) return;
  const dir = holdDir(workspace, dirname(path));
  try {
    writeFileSync(dir.at(basename(path)), was, { flag: 'wx' });
    // Owned like the folder it is in (a root worker leaves no root-owned file in the workspace).
    const folder = lstatSync(dir.at('.'));
    keepOwner(dir.at(basename(path)), folder.uid, folder.gid);
  } finally {
    dir.close();
  }
}

/** Give a file Herald just wrote this owner; only a root worker can, and only it needs to. */
function keepOwner(path: string, uid: number, gid: number): void {
  if (process.getuid?.() !== 0) return;
  try {
    lchownSync(path, uid, gid);
  } catch {
    // Left as it is: the walk after the call hands workspace entries to the sandbox user anyway.
  }
}

/** Undo what must not stay, and say what happened, for the tool result. */
export function settleGit(workspaceAsGiven: string, before: GitSnapshot): string[] {
  const workspace = real(workspaceAsGiven) ?? workspaceAsGiven;
  const notes: string[] = [];
  const rel = (p: string) => relative(workspace, p) || '.';
  for (const [path, was] of before.commondirs) {
    if (commondirState(path).id === was.id) continue;
    try {
      restore(workspace, path, was.text);
    } catch {
      // the folder itself went away: nothing left for git to read
    }
    notes.push(`[sandbox: undid a change to ${rel(path)}: it would make git take its config and hooks from elsewhere]`);
  }
  const scan = findRepositories(workspace, before.maxEntries);
  const { findings } = survey(workspace, scan, MAX_PARSES_AFTER);
  const fresh = findings.filter((f) => !before.ids.has(f.id));
  const drops = new Map<string, ConfigEntry[]>();
  const done = new Map<string, string[]>();
  const record = (path: string, what: string) => done.set(path, [...(done.get(path) ?? []), what]);
  for (const f of fresh) {
    try {
      if (f.fix.kind === 'drop') drops.set(f.fix.file, [...(drops.get(f.fix.file) ?? []), f.fix.entry]);
      else if (f.fix.kind === 'unexec') {
        unexec(workspace, f.fix.path);
        record(f.fix.path, `${f.what} is no longer executable`);
      } else {
        putAside(workspace, f.fix.path);
        record(f.fix.path, `${f.what}: renamed to ${basename(f.fix.path)}${ASIDE_SUFFIX}`);
      }
    } catch (err) {
      record(
        f.fix.kind === 'drop' ? f.fix.file : f.fix.path,
        `${f.what}: could not be neutralised (${(err as Error).message.split('\n')[0]})`,
      );
    }
  }
  for (const [file, entries] of drops) {
    const keys = [...new Set(entries.map((e) => e.key))].join(', ');
    try {
      const how = dropKeys(workspace, file, entries);
      if (how === 'rewritten') record(file, `removed ${keys}`);
      else if (how === 'aside') record(file, `renamed to ${basename(file)}${ASIDE_SUFFIX} (it held ${keys})`);
    } catch (err) {
      record(file, `could not remove ${keys} (${(err as Error).message.split('\n')[0]})`);
    }
  }
  // Paths and key names are the command's choice: each is clipped, so the note stays short.
  const clip = (t: string) => (t.length > MAX_NOTE_PART ? `${t.slice(0, MAX_NOTE_PART)}…` : t);
  const lines = [...done].map(([path, whats]) => `${clip(rel(path))}: ${clip(whats.join('; '))}`);
  if (lines.length)
    notes.push(
      `[sandbox: this command left git configuration that would run programs when you use git here; neutralised: ` +
        `${lines.slice(0, MAX_NOTES).join(' | ')}${lines.length > MAX_NOTES ? ` | and ${lines.length - MAX_NOTES} more` : ''}]`,
    );
  if (!scan.complete)
    notes.push(
      `[sandbox: ${overBudget(before.maxEntries)}: what this command left beyond that was not checked, and ` +
        'the next commands are refused until the workspace is smaller or the budget larger]',
    );
  return notes;
}
