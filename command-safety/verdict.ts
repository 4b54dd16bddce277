/**
 * What the approval gate says about a command (docs/command-safety.md): its level and the findings behind it,
 * each naming its group (what a user fears), its rule, why, and the exact words that triggered it.
 */

export const LEVELS = ['safe', 'dangerous', 'hardline'] as const;
export type Level = (typeof LEVELS)[number];

/** What a user fears, in the order the gate reports it. */
export const GROUPS = {
  destroy_files: 'destroys files',
  destroy_history: 'destroys version-control history or work',
  destroy_data: 'destroys data in a database or store',
  destroy_infrastructure: 'destroys or disrupts infrastructure',
  publish: 'publishes or deploys something to the world',
  exfiltrate: 'reads secrets or sends data off the machine',
  persist: 'plants something that runs later',
  system: 'changes the system: services, users, kernel, firewall, packages',
  indirection: 'runs code the gate cannot read',
} as const;
export type Group = keyof typeof GROUPS;

export interface Finding {
  level: 'dangerous' | 'hardline';
  group: Group;
  rule: string;
  reason: string;
  /** The words that triggered it, as written. */
  words: string;
  /** Where they are in the command (offsets in its text). */
  start: number;
  end: number;
  /** Each word it fired on, with its offsets (for `check-command --explain`). */
  at: Array<{ text: string; start: number; end: number }>;
}

export interface CommandVerdict {
  level: Level;
  /** Hardline findings first, then dangerous ones, each group in the order of GROUPS. */
  findings: Finding[];
}

const GROUP_ORDER = Object.keys(GROUPS) as Group[];

export function verdictOf(findings: Finding[]): CommandVerdict {
  const seen = new Set<string>();
  const unique = findings.filter((f) => {
    const key = `${f.rule}\u0000${f.start}\u0000${f.end}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  unique.sort(
    (a, b) =>
      (a.level === b.level ? 0 : a.level === 'hardline' ? -1 : 1) ||
      GROUP_ORDER.indexOf(a.group) - GROUP_ORDER.indexOf(b.group) ||
      a.start - b.start,
  );
  const level: Level = unique.some((f) => f.level === 'hardline') ? 'hardline' : unique.length ? 'dangerous' : 'safe';
  return { level, findings: unique };
}

export const RANK: Record<Level, number> = { safe: 0, dangerous: 1, hardline: 2 };
