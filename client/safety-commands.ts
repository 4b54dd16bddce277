/**
 * `herald check-command` and `herald scan-text` (docs/command-safety.md): the approval gate's command
 * classifier and the prompt-injection scanner, run on the caller's own input, for users tuning
 * their allowlists and for CI. Nothing here talks to Temporal or Postgres.
 *
 * Single input: the verdict as text, or with `--json` as one JSON object. `--jsonl`: one JSON
 * string per stdin line in, one JSON object per line out, in order; a line that is not a JSON
 * string gets `{"error": …}` and the stream goes on, so one bad line never hides the rest.
 */
import { createInterface } from 'node:readline';
import pc from 'picocolors';
import { classifyCommand, loadCommandSafety } from '../command-safety/classify.js';
import { commandKey } from '../command-safety/approval-check.js';
import { GROUPS } from '../command-safety/verdict.js';
import type { Level } from '../command-safety/verdict.js';
import { visibleCommand } from '../shared/command-display.js';
import type { InjectionFinding } from '../untrusted-text/injection-scan.js';

export interface CommandReport {
  level: Level;
  /** What `session`/`always` approvals of this command are remembered by. */
  key: string;
  findings: Array<{
    level: 'dangerous' | 'hardline';
    rule: string;
    group: string;
    /** The group as a user fears it ("destroy files"). */
    groupName: string;
    reason: string;
    /** The words that triggered it, as written. */
    words: string;
    /** Offsets of those words in the command (UTF-16 code units, end exclusive). */
    span: [number, number];
  }>;
}

export async function checkCommandReport(command: string): Promise<CommandReport> {
  await loadCommandSafety({ proveExamples: false });
  const v = classifyCommand(command);
  return {
    level: v.level,
    key: commandKey(command),
    findings: v.findings.map((f) => ({
      level: f.level,
      rule: f.rule,
      group: f.group,
      groupName: GROUPS[f.group],
      reason: f.reason,
      words: f.words,
      span: [f.start, f.end],
    })),
  };
}

const LEVEL_COLOUR: Record<Level, (s: string) => string> = { safe: pc.green, dangerous: pc.yellow, hardline: pc.red };

export function renderCommandReport(command: string, r: CommandReport): string {
  const lines = [`${LEVEL_COLOUR[r.level](r.level)}  ${visibleCommand(command, 400)}`];
  for (const f of r.findings)
    lines.push(
      `  ${LEVEL_COLOUR[f.level](f.level.padEnd(9))} ${f.rule} (${f.groupName}): ${f.reason}`,
      `  ${' '.repeat(9)} at ${f.span[0]}–${f.span[1]}: ${visibleCommand(f.words, 200)}`,
    );
  return lines.join('\n');
}

/**
 * The scanner behind `herald scan-text`, loaded on demand: its rule tables are proved when it
 * loads, a cost `herald check-command` (which shares this module) should not pay.
 */
export async function loadScanTextReport(): Promise<(text: string) => { findings: InjectionFinding[] }> {
  const { scanForInjection } = await import('../untrusted-text/injection-scan.js');
  return (text) => ({ findings: scanForInjection(text) });
}

export function renderScanReport(r: { findings: InjectionFinding[] }): string {
  if (r.findings.length === 0) return pc.green('no findings');
  return r.findings
    .map((f) => `${pc.yellow(f.family)} ${f.pattern}: ${f.description}\n  ${visibleCommand(f.excerpt, 300)}`)
    .join('\n');
}

/** Read stdin to the end (for a single input given by pipe). */
export async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of process.stdin) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** One JSON string per stdin line in, one JSON object per line out. Blank lines are skipped. */
export async function jsonLines(handle: (input: string) => Promise<object> | object): Promise<void> {
  const rl = createInterface({ input: process.stdin, crlfDelay: Number.POSITIVE_INFINITY });
  let n = 0;
  for await (const line of rl) {
    n += 1;
    if (!line.trim()) continue;
    let out: object;
    try {
      const input: unknown = JSON.parse(line);
      out = typeof input === 'string' ? await handle(input) : { line: n, error: 'each line must be one JSON string' };
    } catch (err) {
      out = { line: n, error: err instanceof SyntaxError ? `not JSON: ${err.message}` : String(err) };
    }
    process.stdout.write(`${JSON.stringify(out)}\n`);
  }
}
