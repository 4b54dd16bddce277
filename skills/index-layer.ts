/**
 * The skills layer of the system prompt: each skill's name and description, so the model knows
 * which know-how exists and loads a skill (`skill_view`) only when a task needs it — the
 * "progressive disclosure" of the agentskills.io format (metadata always, instructions on demand,
 * files when needed). Bounded three ways: each description, the number of skills and the whole
 * layer; what does not fit is counted and left to `skills_list`.
 */
import type { LeftOut } from '../common/left-out.js';
import { leftOutPlaceholder } from '../common/left-out.js';
import { oneLine } from '../common/text.js';

/** Enough for the "use it when…" sentence that makes a description useful. */
export const INDEX_DESCRIPTION_MAX = 300;
export const INDEX_MAX_SKILLS = 100;
export const INDEX_MAX_CHARS = 12_000;

export const SKILLS_GUIDANCE =
  'Skills are instructions for particular kinds of task, each a folder with a SKILL.md and sometimes more files. ' +
  "When a task matches a skill's description, load it with skill_view (name) before you start and follow it; " +
  'skill_view with a path reads one of its files. skills_list lists them all.';

const MORE_LINE_MAX = 64;

export interface SkillSummary {
  name: string;
  description: string;
}

/**
 * The layer's text, or undefined when there are no skills (no layer at all, not an empty one).
 * Skills refused for prompt injection get a placeholder line each, so the model (and whoever reads
 * the prompt) knows one was there; their notes are short and capped (untrusted-text/prompt-screen.ts).
 */
export function skillsIndexLayer(
  skills: readonly SkillSummary[],
  leftOut: readonly LeftOut[] = [],
): string | undefined {
  if (!skills.length && !leftOut.length) return undefined;
  const head = `# Skills\n\n${SKILLS_GUIDANCE}\n\n<available_skills>`;
  const tail = '</available_skills>';
  const lines: string[] = [];
  const refused = leftOut.map((n) => `- ${leftOutPlaceholder(n)}`);
  // Room is kept for the "… and N more" line and the placeholders, so the layer never passes INDEX_MAX_CHARS.
  let size = head.length + tail.length + 2 + MORE_LINE_MAX + refused.reduce((n, l) => n + l.length + 1, 0);
  let shown = 0;
  for (const s of skills) {
    if (shown >= INDEX_MAX_SKILLS) break;
    // Nothing in a description may close the list and speak after it.
    const line = `- ${s.name}: ${oneLine(s.description, INDEX_DESCRIPTION_MAX)}`.replace(
      /<(\s*\/?\s*available_skills)/gi,
      '&lt;$1',
    );
    if (size + line.length + 1 > INDEX_MAX_CHARS) break;
    lines.push(line);
    size += line.length + 1;
    shown += 1;
  }
  const more = skills.length - shown;
  if (more > 0) lines.push(`- … and ${more} more: call skills_list to see them`);
  lines.push(...refused);
  return [head, ...lines, tail].join('\n');
}
