/**
 * A note for something left out of what the model reads because it looked like prompt injection
 * (untrusted-text/prompt-screen.ts decides): what it was and which rule matched. Short (`what` and `rule`
 * are capped) and few (MAX_LEFT_OUT per list), so workflow state that holds them stays bounded.
 * Pure and small: workflow code imports it (the scanner stays out of the workflow bundle).
 */
import { z } from 'zod';
import { boundedString } from './bounded-string.js';

export const LEFT_OUT_WHAT_CHARS = 120;
export const LEFT_OUT_RULE_CHARS = 160;
/** Notes kept per list (the prompt's, one MCP server's); the prompt's placeholders still show every one. */
export const MAX_LEFT_OUT = 16;

export const leftOutSchema = z.object({
  /** What was left out, in Herald's words ("MEMORY entry 2", "AGENTS.md", "MCP tool files/read"). */
  what: boundedString(LEFT_OUT_WHAT_CHARS),
  /** Why: the description of the first rule that matched. */
  rule: boundedString(LEFT_OUT_RULE_CHARS),
});
export type LeftOut = z.infer<typeof leftOutSchema>;

export const leftOutListSchema = z.array(leftOutSchema).max(MAX_LEFT_OUT);

function clip(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/**
 * A name that came from outside (a tool name, a skill folder) made safe to show in the prompt and
 * in a note: letters, digits and `._/-` only, at most 64 characters.
 */
export function safeName(name: string): string {
  const clean = name.replace(/[^A-Za-z0-9._/-]/g, '_').slice(0, 64);
  return clean || '_';
}

export function leftOut(what: string, rule: string): LeftOut {
  return { what: clip(what, LEFT_OUT_WHAT_CHARS), rule: clip(rule, LEFT_OUT_RULE_CHARS) };
}

/** The placeholder that stands in the prompt where the text would have been. */
export function leftOutPlaceholder(note: LeftOut): string {
  return `[left out: ${note.what} — it looked like a prompt injection: ${note.rule}]`;
}

/** One line for people: `AGENTS.md — it looked like a prompt injection: …`. */
export function describeLeftOut(note: LeftOut): string {
  return `${note.what} — it looked like a prompt injection: ${note.rule}`;
}

/** Add a note to a list unless it is full (the list stays within MAX_LEFT_OUT). */
export function addLeftOut(list: LeftOut[], note: LeftOut): void {
  if (list.length < MAX_LEFT_OUT) list.push(note);
}
