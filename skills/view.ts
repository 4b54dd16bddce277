/**
 * Reading a skill (the `skill_view` tool and `herald skills show`): its SKILL.md instructions, or
 * one of its files by a path relative to the skill's folder. Confined like the file tools
 * (workspace-files/confine.ts, safe-files.ts) with the skill's folder as the root: `..`,
 * absolute paths and symbolic links that lead out of it are refused, only regular files are
 * opened, without following a link at the last component, and sizes are bounded. SKILL.md is
 * scanned again when read (it may have changed since the index was built), and so is every other
 * file, since a skill's files are instructions the agent is meant to follow.
 */
import { lstat, stat } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { describeLeftOut, leftOut } from '../common/left-out.js';
import { screenFinding } from '../untrusted-text/prompt-screen.js';
import { closestName } from '../shared/fuzzy.js';
import { openForReading } from '../workspace-files/safe-files.js';
import { WorkspaceEscapeError, resolveInWorkspace } from '../workspace-files/confine.js';
import type { Skill, SkillCatalog, SkillSettings } from './discover.js';
import { SKILL_FILE, discoverSkills, listDir, readSkillFile } from './discover.js';
import { parseSkillFile } from './front-matter.js';

/** A file of a skill (a reference, a template, a script to read). */
export const SKILL_RESOURCE_MAX_BYTES = 512 * 1024;
/** Files listed after the instructions, and how deep the listing goes. */
export const MAX_LISTED_FILES = 50;
const LIST_DEPTH = 3;

export type SkillView =
  | {
      ok: true;
      skill: Skill;
      /** `SKILL.md`, or the file asked for. */
      path: string;
      /** The instructions (SKILL.md after its front matter), or the file's text. */
      content: string;
      /** With SKILL.md: the skill's other files, relative to its folder. */
      files?: string[];
      /** More files than were listed. */
      moreFiles?: boolean;
    }
  | { ok: false; error: string };

/** Find a skill by name in a catalog; the error names why it is missing or refused. */
export function findSkill(
  catalog: SkillCatalog,
  name: string,
): { ok: true; skill: Skill } | { ok: false; error: string } {
  const skill = catalog.skills.find((s) => s.name === name);
  if (skill) return { ok: true, skill };
  const refused = catalog.problems.find((p) => p.name === name && !p.reason.startsWith('shadowed'));
  if (refused)
    return { ok: false, error: `the skill "${name}" (${refused.where}) is not available: ${refused.reason}` };
  const names = catalog.skills.map((s) => s.name);
  if (!names.length) return { ok: false, error: `no skill named "${name}": no skills are installed` };
  const near = closestName(name, names);
  const shown = names.slice(0, 20).join(', ') + (names.length > 20 ? `, … (${names.length - 20} more)` : '');
  return {
    ok: false,
    error: `no skill named "${name}"${near ? `; did you mean "${near}"?` : ''} Skills: ${shown}`,
  };
}

export async function viewSkill(settings: SkillSettings, cwd: string, name: string, path?: string): Promise<SkillView> {
  const found = findSkill(await discoverSkills(settings, cwd), name);
  if (!found.ok) return found;
  const { skill } = found;
  if (path === undefined || path === SKILL_FILE || path === `./${SKILL_FILE}`) {
    const read = await readSkillFile(skill.dir);
    if (!read.ok) return { ok: false, error: `${skill.name}: ${read.error}` };
    const rule = screenFinding(read.text);
    if (rule) return { ok: false, error: `left out: ${describeLeftOut(leftOut(`${skill.name}/${SKILL_FILE}`, rule))}` };
    const parsed = parseSkillFile(read.text);
    if (!parsed.ok) return { ok: false, error: `${skill.name}: ${parsed.error}` };
    const listing = await listSkillFiles(skill.dir);
    return { ok: true, skill, path: SKILL_FILE, content: parsed.body.trim(), ...listing };
  }
  return await viewSkillFile(skill, path);
}

async function viewSkillFile(skill: Skill, path: string): Promise<SkillView> {
  const outside = { ok: false as const, error: `path "${path}" is outside the skill's folder; not read` };
  let abs: string;
  try {
    abs = await resolveInWorkspace(skill.dir, path);
  } catch (err) {
    if (err instanceof WorkspaceEscapeError) return outside;
    return { ok: false, error: `${skill.name}: ${(err as Error).message}` };
  }
  const info = await stat(abs).catch(() => undefined);
  if (!info) return { ok: false, error: `${skill.name} has no file "${path}"${await filesHint(skill.dir)}` };
  if (info.isDirectory()) return { ok: false, error: `"${path}" is a folder${await filesHint(skill.dir)}` };
  if (info.size > SKILL_RESOURCE_MAX_BYTES)
    return { ok: false, error: `"${path}" is ${info.size} bytes, over the limit of ${SKILL_RESOURCE_MAX_BYTES}` };
  let buf: Buffer;
  try {
    const fh = await openForReading(skill.dir, abs, path);
    try {
      buf = await fh.readFile();
    } finally {
      await fh.close();
    }
  } catch (err) {
    if (err instanceof WorkspaceEscapeError) return outside;
    return { ok: false, error: `${skill.name}: ${(err as Error).message}` };
  }
  if (buf.subarray(0, 8192).includes(0)) return { ok: false, error: `"${path}" is not a text file; not shown` };
  const text = buf.toString('utf8');
  const shown = relative(skill.dir, abs);
  const rule = screenFinding(text);
  if (rule) return { ok: false, error: `left out: ${describeLeftOut(leftOut(`${skill.name}/${shown}`, rule))}` };
  return { ok: true, skill, path: shown, content: text };
}

/** The files of a skill folder other than SKILL.md: regular files only (links are not followed), bounded. */
export async function listSkillFiles(dir: string): Promise<{ files: string[]; moreFiles: boolean }> {
  const files: string[] = [];
  let moreFiles = false;
  const walk = async (folder: string, depth: number): Promise<void> => {
    for (const name of await listDir(folder)) {
      if (files.length >= MAX_LISTED_FILES) {
        moreFiles = true;
        return;
      }
      const path = join(folder, name);
      const info = await lstat(path).catch(() => undefined);
      if (info?.isFile()) {
        const rel = relative(dir, path);
        if (rel !== SKILL_FILE) files.push(rel);
      } else if (info?.isDirectory() && depth < LIST_DEPTH) await walk(path, depth + 1);
    }
  };
  await walk(dir, 1);
  return { files, moreFiles };
}

async function filesHint(dir: string): Promise<string> {
  const { files } = await listSkillFiles(dir);
  return files.length ? `; its files: ${files.slice(0, 20).join(', ')}` : '; it has no files besides SKILL.md';
}

/** A view as the model and the CLI read it. */
export function renderSkillView(v: Extract<SkillView, { ok: true }>): string {
  if (v.path !== SKILL_FILE) return `Skill ${v.skill.name}, file ${v.path}:\n\n${v.content}`;
  const parts = [`Skill ${v.skill.name} (${v.skill.where}): ${v.skill.description}`, v.content || '(no instructions)'];
  if (v.files?.length)
    parts.push(
      `Files in this skill (read one with skill_view, name "${v.skill.name}" and its path):\n` +
        v.files.map((f) => `- ${f}`).join('\n') +
        (v.moreFiles ? '\n- … (more files not listed)' : ''),
    );
  return parts.join('\n\n');
}
