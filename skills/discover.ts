/**
 * Finding skills (docs/skills.md). A skill is a folder holding `SKILL.md`; skill folders live in
 * a skills folder directly or one category folder down (`skills/pdf/SKILL.md`,
 * `skills/documents/pdf/SKILL.md`). Skills folders, in order — the first skill of a name wins, as
 * in Claude Code where the user's own skills win over a project's:
 *
 *   1. `<HERALD_HOME>/skills` (the user's);
 *   2. config `skills.paths`, in their order;
 *   3. the workspace's `.herald/skills` and `.claude/skills`, from the workspace up to its git root
 *      (nearest first), like the context-file lookup.
 *
 * Every SKILL.md is screened for prompt injection like a context file, and its description also
 * with the strict rules (untrusted-text/prompt-screen.ts): a skill with a finding is blocked —
 * not indexed (a placeholder stands in the index), not viewable — and reported with the reason, as
 * are skills whose front matter is broken and skills shadowed by an earlier one of the same name.
 * A workspace's skills come from the repository, so a workspace skill folder (or skills folder)
 * that is a symbolic link leading out of the workspace is refused; the user's own folders may
 * link anywhere. Everything is bounded: entries read per folder, skill folders per discovery,
 * bytes per SKILL.md. The result is sorted by where it was found and then by name, so the same
 * files always give the same index (the system prompt's bytes, and so prompt caches, depend on it).
 */
import { lstat, opendir, realpath, stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import { basename, dirname, isAbsolute, join, relative, resolve } from 'node:path';
import type { LeftOut } from '../common/left-out.js';
import { addLeftOut, leftOut, safeName } from '../common/left-out.js';
import { screenFinding } from '../untrusted-text/prompt-screen.js';
import { isInside } from '../sandbox/host.js';
import { openForReading } from '../workspace-files/safe-files.js';
import { workspaceFolders } from '../workspace-files/git-root.js';
import { parseSkillFile, skillNameProblem } from './front-matter.js';

/** Skill folders read in one discovery (every root together). */
export const MAX_SKILLS = 200;
/** Entries read from one folder. */
export const MAX_DIR_ENTRIES = 500;
/** A SKILL.md is instructions for one task; the agentskills.io guide keeps them under ~5,000 tokens. */
export const SKILL_FILE_MAX_BYTES = 128 * 1024;

export const SKILL_FILE = 'SKILL.md';
const WORKSPACE_SKILL_FOLDERS = ['.herald/skills', '.claude/skills'];

/** Where to look besides the workspace: the Herald home and config `skills.paths` (absolute). */
export interface SkillSettings {
  home?: string | undefined;
  paths: readonly string[];
}

export type SkillOrigin = 'home' | 'config' | 'workspace';

export interface SkillRoot {
  dir: string;
  origin: SkillOrigin;
  /** Workspace roots: the folder every skill must really be inside (the workspace's top folder). */
  confine?: string;
}

export interface Skill {
  name: string;
  /** One line, at most 1,024 characters. */
  description: string;
  /** The skill folder's real path: the only folder skill_view reads from. */
  dir: string;
  /** Where it was found, for people and the model (`.herald/skills/pdf`, `$HERALD_HOME/skills/pdf`). */
  where: string;
  origin: SkillOrigin;
}

export interface SkillProblem {
  /** The skill's name, when it got as far as having one (else the folder's). */
  name: string;
  where: string;
  reason: string;
  /** Blocked for a prompt-injection finding (the others are broken or shadowed). */
  blocked: boolean;
  /** When blocked: the description of the rule that matched. */
  rule?: string;
}

export interface SkillCatalog {
  skills: Skill[];
  problems: SkillProblem[];
  /** More skill folders than MAX_SKILLS (or a folder with more than MAX_DIR_ENTRIES entries). */
  truncated: boolean;
}

/** The settings a worker or the CLI uses: `skills.paths` resolved against the config file's folder. */
export function skillSettings(config: {
  home: string;
  configPath?: string | undefined;
  file: { skills: { paths: readonly string[] } };
}): SkillSettings {
  const base = config.configPath ? dirname(config.configPath) : config.home;
  const abs = (p: string) =>
    p === '~' || p.startsWith('~/') ? join(homedir(), p.slice(1)) : isAbsolute(p) ? p : resolve(base, p);
  return { home: config.home, paths: config.file.skills.paths.map(abs) };
}

/** The skills folders for a workspace, in the order they are searched. */
export function skillRoots(settings: SkillSettings, cwd: string): SkillRoot[] {
  const roots: SkillRoot[] = [];
  if (settings.home) roots.push({ dir: join(settings.home, 'skills'), origin: 'home' });
  for (const dir of settings.paths) roots.push({ dir, origin: 'config' });
  const folders = workspaceFolders(cwd);
  const top = folders[folders.length - 1]!;
  for (const dir of folders)
    for (const sub of WORKSPACE_SKILL_FOLDERS) roots.push({ dir: join(dir, sub), origin: 'workspace', confine: top });
  const seen = new Set<string>();
  return roots.filter((r) => !seen.has(r.dir) && seen.add(r.dir));
}

/** Every skill for a workspace, with the ones refused and why. */
export async function discoverSkills(settings: SkillSettings, cwd: string): Promise<SkillCatalog> {
  const catalog: SkillCatalog = { skills: [], problems: [], truncated: false };
  const byName = new Map<string, Skill>();
  const readDirs = new Set<string>();
  let budget = MAX_SKILLS;
  for (const root of skillRoots(settings, cwd)) {
    const show = (folder: string) => displayPath(root, folder, settings, cwd);
    const realRoot = await realpath(root.dir).catch(() => undefined);
    if (!realRoot || !(await isDirectory(realRoot))) continue;
    const confine = root.confine ? await realpath(root.confine).catch(() => root.confine!) : undefined;
    if (confine && !isInside(confine, realRoot)) {
      catalog.problems.push({
        name: basename(root.dir),
        where: show(root.dir),
        reason: 'the skills folder is a symbolic link out of the workspace; not read',
        blocked: false,
      });
      continue;
    }
    for (const folder of await skillFolders(root.dir, catalog)) {
      if (budget-- <= 0) break;
      const loaded = await loadSkill(folder, root, confine, show(folder));
      if ('reason' in loaded) {
        catalog.problems.push(loaded);
        continue;
      }
      // The same folder reached twice (a root inside another, a link to a sibling) is one skill.
      if (readDirs.has(loaded.dir)) continue;
      readDirs.add(loaded.dir);
      const first = byName.get(loaded.name);
      if (first) {
        catalog.problems.push({
          name: loaded.name,
          where: loaded.where,
          reason: `shadowed by the skill of the same name in ${first.where}`,
          blocked: false,
        });
        continue;
      }
      byName.set(loaded.name, loaded);
      catalog.skills.push(loaded);
    }
    if (budget < 0) {
      catalog.truncated = true;
      break;
    }
  }
  return catalog;
}

/** Skill folders in a skills folder: `<dir>/<skill>` and `<dir>/<category>/<skill>`, sorted by name. */
async function skillFolders(dir: string, catalog: SkillCatalog, depth = 0): Promise<string[]> {
  const out: string[] = [];
  for (const name of await listDir(dir, catalog)) {
    const folder = join(dir, name);
    if (!(await isDirectory(folder))) continue;
    // lstat: a SKILL.md that is a symbolic link is found here and refused when read.
    if (await lstat(join(folder, SKILL_FILE)).catch(() => undefined)) out.push(folder);
    else if (depth === 0) out.push(...(await skillFolders(folder, catalog, 1)));
  }
  return out;
}

/** A folder's visible entry names, sorted, at most MAX_DIR_ENTRIES of them. */
export async function listDir(dir: string, catalog?: { truncated: boolean }): Promise<string[]> {
  const names: string[] = [];
  try {
    const handle = await opendir(dir);
    for await (const entry of handle) {
      if (entry.name.startsWith('.')) continue;
      if (names.length >= MAX_DIR_ENTRIES) {
        if (catalog) catalog.truncated = true;
        break;
      }
      names.push(entry.name);
    }
  } catch {
    return [];
  }
  return names.sort();
}

async function loadSkill(
  folder: string,
  root: SkillRoot,
  confine: string | undefined,
  where: string,
): Promise<Skill | SkillProblem> {
  const folderName = basename(folder);
  const problem = (reason: string, blocked = false, name = folderName): SkillProblem => ({
    name,
    where,
    reason,
    blocked,
  });
  const dir = await realpath(folder).catch(() => undefined);
  if (!dir) return problem('the folder cannot be read');
  if (confine && !isInside(confine, dir))
    return problem('the folder is a symbolic link out of the workspace; not read');
  const read = await readSkillFile(dir);
  if (!read.ok) return problem(read.error);
  const parsed = parseSkillFile(read.text);
  // Blocked whatever else is wrong with it, under the name it gives itself when it gives one.
  const rule = screenFinding(read.text) ?? (parsed.ok ? screenFinding(parsed.description, 'strict') : undefined);
  if (rule)
    return {
      ...problem(
        `left out: it looked like a prompt injection: ${rule}`,
        true,
        (parsed.ok && parsed.name) || folderName,
      ),
      rule,
    };
  if (!parsed.ok) return problem(parsed.error);
  const name = parsed.name ?? folderName;
  const nameProblem = parsed.name ? undefined : skillNameProblem(folderName);
  if (nameProblem)
    return problem(`no "name" in the front matter, and the folder's name cannot stand in: ${nameProblem}`);
  return { name, description: parsed.description, dir, where, origin: root.origin };
}

export type SkillFileRead = { ok: true; text: string } | { ok: false; error: string };

/** SKILL.md of a skill folder (a real path): a regular file inside it, bounded, text. */
export async function readSkillFile(dir: string): Promise<SkillFileRead> {
  let buf: Buffer;
  try {
    const fh = await openForReading(dir, join(dir, SKILL_FILE), SKILL_FILE);
    try {
      const size = (await fh.stat()).size;
      if (size > SKILL_FILE_MAX_BYTES)
        return { ok: false, error: `SKILL.md is ${size} bytes, over the limit of ${SKILL_FILE_MAX_BYTES}` };
      buf = await fh.readFile();
    } finally {
      await fh.close();
    }
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ELOOP') return { ok: false, error: 'SKILL.md is a symbolic link; not followed' };
    if (code === 'ENOENT') return { ok: false, error: 'SKILL.md is gone' };
    return { ok: false, error: (err as Error).message };
  }
  if (buf.includes(0)) return { ok: false, error: 'SKILL.md is not text' };
  return { ok: true, text: buf.toString('utf8') };
}

function displayPath(root: SkillRoot, path: string, settings: SkillSettings, cwd: string): string {
  if (root.origin === 'workspace') return relative(cwd, path) || '.';
  if (root.origin === 'home' && settings.home) return join('$HERALD_HOME', relative(settings.home, path));
  return path;
}

async function isDirectory(path: string): Promise<boolean> {
  return (await stat(path).catch(() => undefined))?.isDirectory() ?? false;
}

/** The note for a skill blocked for prompt injection (its name made safe: a folder's name is anyone's text). */
export function skillLeftOut(p: SkillProblem): LeftOut {
  return leftOut(`skill ${safeName(p.name)}`, p.rule ?? 'possible prompt injection');
}

export interface PromptSkills {
  skills: Array<{ name: string; description: string }>;
  /** Skills blocked for prompt injection: a placeholder each in the index (capped). */
  leftOut: LeftOut[];
}

/**
 * The skills a new session's system prompt indexes: none unless the session may call skill_view
 * (an index of skills it cannot load would only mislead). A failure to look is no reason to fail
 * the session: it gets no index, and `warn` hears why.
 */
export async function skillsForPrompt(
  settings: SkillSettings,
  cwd: string,
  tools: readonly string[],
  warn: (fields: Record<string, unknown>, message: string) => void,
): Promise<PromptSkills> {
  if (!tools.includes('skill_view')) return { skills: [], leftOut: [] };
  try {
    const catalog = await discoverSkills(settings, cwd);
    const notes: LeftOut[] = [];
    for (const p of catalog.problems.filter((x) => x.blocked)) {
      warn({ skill: p.name, where: p.where, reason: p.reason }, 'skill blocked: not in the skills index');
      addLeftOut(notes, skillLeftOut(p));
    }
    return { skills: catalog.skills.map((s) => ({ name: s.name, description: s.description })), leftOut: notes };
  } catch (err) {
    warn({ err: (err as Error).message }, 'skills could not be listed; the session has no skills index');
    return { skills: [], leftOut: [] };
  }
}
