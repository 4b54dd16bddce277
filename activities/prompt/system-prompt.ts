/**
 * The system prompt (SPEC §10), built once per session and stored with it so every call sends
 * the same bytes (provider prompt caches depend on it). Layers, in order: identity, tool-use
 * guidance, platform hint, the caller's system message, project context, and the date/model line.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { truncateMiddle } from '../../common/text.js';

export const BUILTIN_IDENTITY =
  "You are Herald, a capable software and operations agent. You work in the user's workspace through tools, " +
  'think before acting, and report plainly what you did and what you found.';

export const TOOL_GUIDANCE = [
  'Use tools to act and to check facts instead of guessing. Read files before changing them.',
  'When several tool calls are independent, you may request them together.',
  'Messages wrapped in [OUT-OF-BAND USER MESSAGE] … [/OUT-OF-BAND USER MESSAGE] inside a tool result come from the user, ' +
    'sent while you were working: follow them as if the user had said them directly.',
  'Lines starting with [BUDGET …] tell you how many model calls this turn has left.',
].join('\n');

const PLATFORM_HINTS: Record<string, string> = {
  cli: 'You are talking to the user in a terminal. Replies are shown as plain text; keep formatting light.',
  api: 'Your replies are returned to a program through an API; answer in plain Markdown.',
  subagent: 'You are a sub-agent working for another agent. Return a complete, self-contained report of your result.',
};

const CONTEXT_FILES = ['HERALD.md', '.herald.md', 'AGENTS.md', 'CLAUDE.md', '.cursorrules'];
const CONTEXT_FILE_MAX_CHARS = 20_000;

export interface SystemPromptInput {
  home: string;
  cwd: string;
  platform: string;
  systemMessage?: string | undefined;
  model: string;
  provider: string;
  now: Date;
}

export function buildSystemPrompt(input: SystemPromptInput): string {
  const layers: string[] = [];
  const soul = readIfExists(join(input.home, 'SOUL.md'));
  layers.push(soul?.trim() || BUILTIN_IDENTITY);
  layers.push(TOOL_GUIDANCE);
  layers.push(PLATFORM_HINTS[input.platform] ?? PLATFORM_HINTS.api!);
  if (input.systemMessage?.trim()) layers.push(input.systemMessage.trim());
  const context = projectContext(input.cwd);
  if (context) layers.push(context);
  layers.push(
    `Current date: ${input.now.toISOString().slice(0, 10)}. Model: ${input.model}. Provider: ${input.provider}. Workspace: ${input.cwd}.`,
  );
  return layers.join('\n\n');
}

function projectContext(cwd: string): string | undefined {
  for (const name of CONTEXT_FILES) {
    const text = readIfExists(join(cwd, name));
    if (text?.trim()) {
      return `# Project context (${name})\n\n${truncateMiddle(text.trim(), CONTEXT_FILE_MAX_CHARS, (n) => `\n[… ${n} characters of ${name} omitted …]\n`)}`;
    }
  }
  return undefined;
}

function readIfExists(path: string): string | undefined {
  try {
    return existsSync(path) ? readFileSync(path, 'utf8') : undefined;
  } catch {
    return undefined;
  }
}
