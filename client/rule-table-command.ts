/**
 * `herald check-command --list-rules` and `--explain` (docs/command-safety.md): the approval gate's
 * rule table as text or JSON, and for one command which rule fired on which words — a table row
 * (with its group, reason and examples) or a check the engine makes in code.
 */
import { classifyCommand, loadCommandSafety } from '../command-safety/classify.js';
import { CODE_RULE_IDS } from '../command-safety/rule-ids.js';
import { RULE_TABLE } from '../command-safety/table/index.js';
import type { Row } from '../command-safety/table/schema.js';
import { GROUPS } from '../command-safety/verdict.js';
import { visibleCommand } from '../shared/command-display.js';

export interface RuleList {
  rows: Row[];
  /** Ids reported by the engine or a rule written in code rather than a row. */
  codeRules: string[];
}

export function listRules(): RuleList {
  return {
    rows: [...RULE_TABLE.rows],
    codeRules: CODE_RULE_IDS.filter((id) => !RULE_TABLE.rows.some((r) => r.id === id)),
  };
}

const programs = (r: Row) => [...new Set(r.when.flatMap((p) => p.program))].join(', ');

export function renderRules(l: RuleList): string {
  const lines = l.rows.map(
    (r) => `${r.id.padEnd(24)} ${r.level.padEnd(9)} ${r.group.padEnd(22)} ${programs(r)}\n${' '.repeat(25)}${r.reason}`,
  );
  lines.push('', `rules in code (${l.codeRules.length}): ${l.codeRules.join(' ')}`);
  return lines.join('\n');
}

export interface Explanation {
  level: string;
  fired: Array<{
    rule: string;
    source: 'table' | 'code';
    level: string;
    group: string;
    reason: string;
    words: Array<{ text: string; span: [number, number] }>;
    /** For a table row: commands it is proven to match. */
    examples?: string[];
  }>;
}

export async function explainCommand(command: string): Promise<Explanation> {
  await loadCommandSafety({ proveExamples: false });
  const v = classifyCommand(command);
  return {
    level: v.level,
    fired: v.findings.map((f) => {
      const row = RULE_TABLE.rows.find((r) => r.id === f.rule);
      return {
        rule: f.rule,
        source: row ? 'table' : 'code',
        level: f.level,
        group: f.group,
        reason: f.reason,
        words: f.at.map((w) => ({ text: w.text, span: [w.start, w.end] as [number, number] })),
        ...(row ? { examples: row.match.slice(0, 3) } : {}),
      };
    }),
  };
}

export function renderExplanation(command: string, e: Explanation): string {
  const lines = [`${e.level}  ${visibleCommand(command, 400)}`];
  for (const f of e.fired) {
    lines.push(
      `  ${f.rule} (${f.source === 'table' ? 'table row' : 'code'}, ${f.level}, ${GROUPS[f.group as keyof typeof GROUPS]}): ${f.reason}`,
    );
    for (const w of f.words)
      lines.push(`    fired on ${JSON.stringify(visibleCommand(w.text, 120))} at ${w.span[0]}–${w.span[1]}`);
    if (f.examples) lines.push(`    also matches: ${f.examples.join(' | ')}`);
  }
  return lines.join('\n');
}

/** The check-command action for `--list-rules` and `--explain`. */
export async function ruleTableAction(
  words: string[],
  o: { json?: boolean; listRules?: boolean },
  print: (json: boolean, value: unknown, text: string) => void,
): Promise<void> {
  if (o.listRules) {
    const l = listRules();
    return print(Boolean(o.json), l, renderRules(l));
  }
  const { readStdin } = await import('./safety-commands.js');
  const command = words.length ? words.join(' ') : (await readStdin()).replace(/\n$/, '');
  const e = await explainCommand(command);
  print(Boolean(o.json), e, renderExplanation(command, e));
}
