/**
 * Input history that survives restarts: one line per entry in `<home>/chat_history`, newest last,
 * at most MAX_HISTORY entries. A line that looks like it holds a credential (a known key shape, a
 * configured key's value, `password=…`) is never written: the file is plain text in the home.
 */
import { appendFileSync, chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Redactor } from '../shared/redaction.js';

export const MAX_HISTORY = 1000;
export const MAX_HISTORY_LINE = 2000;
export const HISTORY_FILE = 'chat_history';

const ASSIGNMENT = /\b(api[_-]?key|secret|token|password|passwd|pwd)\b\s*[:=]\s*\S{6,}/i;

/** Whether `line` must not be stored (a secret, or too long to be worth recalling). */
export function unsafeForHistory(line: string, redactor: Redactor): boolean {
  if (line.length > MAX_HISTORY_LINE) return true;
  if (ASSIGNMENT.test(line)) return true;
  return redactor.redact(line) !== line;
}

export class InputHistory {
  readonly path: string;

  constructor(
    home: string,
    private readonly redactor: Redactor,
  ) {
    this.path = join(home, HISTORY_FILE);
  }

  /** Entries, oldest first (a multi-line entry is stored with its newlines escaped). */
  load(): string[] {
    if (!existsSync(this.path)) return [];
    try {
      const lines = readFileSync(this.path, 'utf8').split('\n').filter(Boolean).map(unescape);
      return lines.slice(-MAX_HISTORY);
    } catch {
      return [];
    }
  }

  /** Remember `entry` (unless unsafe); the file is trimmed to MAX_HISTORY when it grows past twice that. */
  add(entry: string): boolean {
    const text = entry.trim();
    if (!text || unsafeForHistory(text, this.redactor)) return false;
    try {
      mkdirSync(dirname(this.path), { recursive: true });
      appendFileSync(this.path, `${escape(text)}\n`, { mode: 0o600 });
      const all = readFileSync(this.path, 'utf8').split('\n').filter(Boolean);
      if (all.length > 2 * MAX_HISTORY) writeFileSync(this.path, `${all.slice(-MAX_HISTORY).join('\n')}\n`);
      chmodSync(this.path, 0o600);
      return true;
    } catch {
      return false;
    }
  }
}

function escape(s: string): string {
  return s.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');
}

function unescape(s: string): string {
  return s.replace(/\\(\\|n)/g, (_m, c: string) => (c === 'n' ? '\n' : '\\'));
}
