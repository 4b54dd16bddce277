/**
 * `skills_list` and `skill_view` (toolset `skills`, docs/skills.md): the agent's way into the
 * skills the system prompt's index names. Both look again at call time (a skill added during a
 * session is found; one removed or changed into an injection is not served). Their results are
 * workspace data like a file read: a workspace's skills come from whoever wrote the repository.
 */
import { z } from 'zod';
import { oneLine } from '../../common/text.js';
import type { SkillSettings } from '../../skills/discover.js';
import { discoverSkills } from '../../skills/discover.js';
import { renderSkillView, viewSkill } from '../../skills/view.js';
import { defineTool } from './registry.js';
import { TRAITS } from '../../common/tool-batch.js';

const MAX_LISTED_PROBLEMS = 20;

export function skillsListTool(settings: SkillSettings) {
  return defineTool({
    name: 'skills_list',
    toolset: 'skills',
    untrusted: 'workspace',
    description:
      'List the skills available here. Gives each skill (instructions for a particular kind of task) with its name, ' +
      'description and where it was found, and the skills that were refused and why; load one with skill_view.',
    parameters: z.object({}).strict(),
    traits: TRAITS.reads,
    summarize: () => 'skills_list',
    timeoutSeconds: () => 30,
    async handler(_a, ctx) {
      const catalog = await discoverSkills(settings, ctx.cwd);
      const lines: string[] = [];
      lines.push(
        catalog.skills.length
          ? `${catalog.skills.length} skill(s); load one with skill_view before a task it fits:`
          : 'No skills are installed (skills are folders with a SKILL.md in .herald/skills, .claude/skills or the Herald home).',
      );
      for (const s of catalog.skills) lines.push(`- ${s.name}: ${s.description} [${s.where}]`);
      if (catalog.truncated) lines.push('(more skill folders exist than are read at once; some are not listed)');
      if (catalog.problems.length) {
        lines.push('', 'Not available:');
        for (const p of catalog.problems.slice(0, MAX_LISTED_PROBLEMS))
          lines.push(`- ${p.name} [${p.where}]: ${oneLine(p.reason, 200)}`);
        if (catalog.problems.length > MAX_LISTED_PROBLEMS)
          lines.push(`- … and ${catalog.problems.length - MAX_LISTED_PROBLEMS} more`);
      }
      return { content: lines.join('\n') };
    },
  });
}

export function skillViewTool(settings: SkillSettings) {
  return defineTool({
    name: 'skill_view',
    toolset: 'skills',
    untrusted: 'workspace',
    description:
      "Load a skill. Returns its SKILL.md instructions and the list of its files, or, with path, one of its files (relative to the skill's folder).",
    parameters: z
      .object({
        name: z.string().min(1).max(64).describe('The skill, as named in the skills index or by skills_list'),
        path: z
          .string()
          .min(1)
          .max(1000)
          .optional()
          .describe(
            "A file of the skill, relative to its folder (e.g. references/api.md); default: SKILL.md's instructions",
          ),
      })
      .strict(),
    traits: TRAITS.reads,
    summarize: (a) => `skill_view: ${a.name}${a.path ? `/${a.path}` : ''}`,
    timeoutSeconds: () => 30,
    async handler(a, ctx) {
      const view = await viewSkill(settings, ctx.cwd, a.name, a.path);
      return view.ok ? { content: renderSkillView(view) } : { content: view.error, isError: true };
    },
  });
}
