/**
 * `herald skills list` and `herald skills show <name> [path]` (docs/skills.md): the skills a
 * conversation in a workspace would get, found and screened exactly as the worker does
 * (skills/), on this machine's files. Nothing here talks to Temporal or Postgres; the
 * workspace is `--cwd` or the current folder.
 */
import pc from 'picocolors';
import type { SkillCatalog, SkillSettings } from '../skills/discover.js';
import { skillRoots } from '../skills/discover.js';

export function renderSkillsList(catalog: SkillCatalog, settings: SkillSettings, cwd: string): string {
  const lines: string[] = [`skills for ${cwd}:`];
  const rows = [
    ...catalog.skills.map((s) => ({ ok: true, name: s.name, where: s.where, text: s.description })),
    ...catalog.problems.map((p) => ({ ok: false, name: p.name, where: p.where, text: p.reason })),
  ];
  if (!rows.length) {
    lines.push('no skills found; looked in:', ...skillRoots(settings, cwd).map((r) => `  ${r.dir}`));
    return lines.join('\n');
  }
  const nameWidth = Math.max(...rows.map((r) => r.name.length));
  const whereWidth = Math.max(...rows.map((r) => r.where.length));
  for (const r of rows) {
    const mark = r.ok ? pc.green('✓') : pc.red('✗');
    const text = r.ok ? firstSentence(r.text) : pc.yellow(r.text);
    lines.push(`${mark} ${r.name.padEnd(nameWidth)}  ${pc.dim(r.where.padEnd(whereWidth))}  ${text}`);
  }
  if (catalog.truncated) lines.push(pc.yellow('(more skill folders than are read at once: some are not listed)'));
  return lines.join('\n');
}

function firstSentence(text: string): string {
  const cut = text.search(/\.\s/);
  const s = cut > 0 ? text.slice(0, cut + 1) : text;
  return s.length > 120 ? `${s.slice(0, 119)}…` : s;
}
