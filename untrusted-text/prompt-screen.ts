/**
 * Screening of text from outside Herald where it enters what the model reads as its own
 * instructions: the system prompt (context files, memory entries, the skills index, MCP server
 * notes) and the tool definitions (MCP tool and parameter descriptions). Every channel goes through
 * the whole prompt-injection scanner (untrusted-text/injection-scan.ts, every family). Short metadata —
 * MCP tool and parameter descriptions, skill descriptions, memory entries — is `strict`: it also
 * goes through the strict rules (untrusted-text/prompt-screen-rules.ts), since a line that says what a
 * tool is for, or a remembered fact, has no reason to name the user's key files or pipe a download
 * into a shell. Documents (context files, SKILL.md bodies, SOUL.md) may discuss those and get the
 * scanner alone.
 *
 * What is refused is left out, never silently: in the prompt a placeholder
 * `[left out: <what> — it looked like a prompt injection: <rule>]`, and a `LeftOut` note
 * (common/left-out.ts) for the conversation's state, the CLI and the Web UI. Pure.
 */
import type { LeftOut } from '../common/left-out.js';
import { addLeftOut, leftOut, leftOutPlaceholder } from '../common/left-out.js';
import { scanForInjection } from './injection-scan.js';
import { strictFinding } from './prompt-screen-rules.js';

/** `document`: the scanner; `strict`: the scanner and the strict rules. */
export type ScreenChannel = 'document' | 'strict';

/** Why `text` may not enter the prompt (the matched rule's description), or undefined when it may. */
export function screenFinding(text: string, channel: ScreenChannel = 'document'): string | undefined {
  const found = scanForInjection(text)[0]?.description;
  if (found) return found;
  return channel === 'strict' ? strictFinding(text) : undefined;
}

/**
 * The text, or its placeholder when it is refused (the note goes to `notes` when given). For the
 * prompt builder and anything else that shows untrusted text to the model in Herald's own voice.
 */
export function screenForPrompt(
  what: string,
  text: string,
  notes?: LeftOut[],
  channel: ScreenChannel = 'document',
): string {
  const rule = screenFinding(text, channel);
  if (!rule) return text;
  const note = leftOut(what, rule);
  if (notes) addLeftOut(notes, note);
  return leftOutPlaceholder(note);
}
