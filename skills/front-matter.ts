/**
 * A SKILL.md file (the agentskills.io format Hermes and Claude Code use): YAML front matter between
 * `---` lines carrying `name` and `description`, then the Markdown instructions. The front matter
 * is read with the `yaml` package (already Herald's config parser: YAML 1.2, alias expansion
 * bounded, duplicate keys refused) rather than by splitting lines, so quoted, folded and multi-line
 * descriptions read as their authors meant. Other keys (`license`, `allowed-tools`, `metadata`, …)
 * are allowed and ignored.
 */
import { parse } from 'yaml';

/** The agentskills.io limits: a name of at most 64 characters, a description of at most 1,024. */
export const SKILL_NAME_MAX = 64;
export const SKILL_DESCRIPTION_MAX = 1024;
/** Front matter is metadata: anything longer is not a skill header. */
export const FRONT_MATTER_MAX_CHARS = 16_000;

/**
 * Letters, digits, `-`, `_` and `.`, starting with a letter or digit: safe as a tool argument, in a
 * terminal and in the system prompt. (The spec asks for lower case and hyphens; skills in the wild
 * also use capitals and underscores, and refusing them would only hide them.)
 */
const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

export type ParsedSkillFile =
  | {
      ok: true;
      /** The front matter's `name`, when it has one (the folder's name stands in otherwise). */
      name: string | undefined;
      /** One line, at most SKILL_DESCRIPTION_MAX characters. */
      description: string;
      /** The Markdown after the front matter. */
      body: string;
    }
  | { ok: false; error: string };

/** Why `name` cannot name a skill, or undefined when it can. */
export function skillNameProblem(name: string): string | undefined {
  if (!name) return 'the name is empty';
  if (name.length > SKILL_NAME_MAX) return `the name is longer than ${SKILL_NAME_MAX} characters`;
  if (!NAME.test(name)) return `the name "${name}" may only hold letters, digits, "-", "_" and "."`;
  return undefined;
}

export function parseSkillFile(text: string): ParsedSkillFile {
  const src = text.replace(/^\uFEFF/, '');
  const open = /^---[ \t]*\r?\n/.exec(src);
  if (!open) return { ok: false, error: 'SKILL.md does not start with YAML front matter (a --- line)' };
  const rest = src.slice(open[0].length);
  // The closing line may be the very first one (empty front matter) or follow a newline.
  const close = /(^|\r?\n)---[ \t]*(\r?\n|$)/.exec(rest);
  if (!close) return { ok: false, error: 'the front matter is not closed by a --- line' };
  const yamlText = rest.slice(0, close.index);
  if (yamlText.length > FRONT_MATTER_MAX_CHARS)
    return { ok: false, error: `the front matter is longer than ${FRONT_MATTER_MAX_CHARS} characters` };
  let meta: unknown;
  try {
    meta = parse(yamlText, { maxAliasCount: 16, uniqueKeys: true, prettyErrors: false });
  } catch (err) {
    return { ok: false, error: `the front matter is not valid YAML: ${firstLine((err as Error).message)}` };
  }
  if (meta === null || typeof meta !== 'object' || Array.isArray(meta))
    return { ok: false, error: 'the front matter is not a YAML mapping (name: …, description: …)' };
  const fields = meta as Record<string, unknown>;
  let name: string | undefined;
  if (fields.name !== undefined && fields.name !== null) {
    if (typeof fields.name !== 'string') return { ok: false, error: 'the front matter\'s "name" is not text' };
    name = fields.name.trim();
    const problem = skillNameProblem(name);
    if (problem) return { ok: false, error: problem };
  }
  if (typeof fields.description !== 'string' || !fields.description.trim())
    return { ok: false, error: 'the front matter has no "description" (it tells the agent when to use the skill)' };
  const flat = fields.description.replace(/\s+/g, ' ').trim();
  const description = flat.length > SKILL_DESCRIPTION_MAX ? `${flat.slice(0, SKILL_DESCRIPTION_MAX - 1)}…` : flat;
  return { ok: true, name, description, body: rest.slice(close.index + close[0].length) };
}

function firstLine(s: string): string {
  return (s.split('\n')[0] ?? s).slice(0, 200);
}
