/**
 * From a verdict to what the workflow carries for a `terminal` call (CommandCheck): the level,
 * the rules and groups with their reasons, a bounded visible preview of the command (the whole
 * command stays in Postgres with the call), and the key that a "session" or "always" approval of
 * this command is remembered by: the command as parsed (its simple commands' words), so spacing
 * and quoting do not matter and a different path does.
 */
import { createHash } from 'node:crypto';
import { visibleCommand } from '../shared/command-display.js';
import type { CommandCheck } from '../common/tool-batch.js';
import { classifyCommand } from './classify.js';
import { parseShell } from './shell.js';
import { GROUPS } from './verdict.js';

/** The most of a command carried in workflow state and history (the rest is in Postgres). */
export const COMMAND_PREVIEW_CHARS = 4000;

/** The key of a command for approvals: the same words in the same simple commands, however spaced or quoted. */
export function commandKey(command: string): string {
  let canonical: string;
  try {
    const p = parseShell(command);
    canonical = JSON.stringify(
      p.commands.map((c) => [
        c.words.map((w) => w.value ?? w.raw),
        c.redirects.map((r) => [r.op, r.target?.value ?? r.target?.raw ?? null]),
      ]),
    );
  } catch {
    canonical = command.replace(/\s+/g, ' ').trim();
  }
  return createHash('sha256').update(canonical).digest('hex').slice(0, 32);
}

/** Allowlist entries: a rule name, or `cmd:<key>` for one command approved "always". */
export const commandAllowKey = (key: string) => `cmd:${key}`;

/** The check of a terminal call against the "always" allowlist (rules and commands). */
export function checkCommand(command: string, allowlist: ReadonlySet<string>): CommandCheck | undefined {
  const verdict = classifyCommand(command);
  if (verdict.level === 'safe') return undefined;
  const findings = verdict.findings.slice(0, 8).map((f) => ({
    level: f.level,
    rule: f.rule,
    group: f.group,
    reason: f.reason,
    words: visibleCommand(f.words, 200),
  }));
  const rules = [...new Set(verdict.findings.map((f) => f.rule))];
  const groups = [...new Set(verdict.findings.map((f) => f.group))];
  const key = commandKey(command);
  const lead = verdict.findings.filter((f) => f.level === verdict.level);
  const description = [...new Set(lead.map((f) => `${GROUPS[f.group]}: ${f.reason}`))].slice(0, 4).join('; ');
  const preview = visibleCommand(command, COMMAND_PREVIEW_CHARS);
  const base = {
    rules,
    groups,
    description,
    command: preview,
    commandChars: command.length,
    commandKey: key,
    findings,
  };
  if (verdict.level === 'hardline') return { level: 'hardline', ...base };
  const allowed = allowlist.has(commandAllowKey(key)) || rules.every((r) => allowlist.has(r));
  return { level: allowed ? 'allowed' : 'dangerous', ...base };
}
