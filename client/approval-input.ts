/**
 * What a person types to answer an approval in `herald chat` (at the `approve ›` prompt or after
 * `/approve`): a decision, and with a deny an optional reason for the model (`d use the test
 * database instead`). `sr`/`ar` widen session/always approval to every command of the rule.
 */
import type { ApprovalDecision, ApprovalScope } from '../common/contract.js';
import { MAX_DENY_REASON_CHARS } from '../common/contract.js';

export interface ApprovalAnswer {
  decision: ApprovalDecision;
  scope?: ApprovalScope;
  reason?: string;
}

const DECISIONS: Record<string, ApprovalAnswer> = {
  o: { decision: 'once' },
  once: { decision: 'once' },
  s: { decision: 'session' },
  session: { decision: 'session' },
  sr: { decision: 'session', scope: 'rule' },
  'session rule': { decision: 'session', scope: 'rule' },
  a: { decision: 'always' },
  always: { decision: 'always' },
  ar: { decision: 'always', scope: 'rule' },
  'always rule': { decision: 'always', scope: 'rule' },
  d: { decision: 'deny' },
  deny: { decision: 'deny' },
  n: { decision: 'deny' },
  no: { decision: 'deny' },
};
const DENY_WORDS = new Set(['d', 'deny', 'n', 'no']);

/** The answer `text` means, or undefined when it is none (the caller shows the choices). */
export function parseApprovalAnswer(text: string): ApprovalAnswer | undefined {
  const flat = text.trim().replace(/\s+/g, ' ');
  const whole = DECISIONS[flat.toLowerCase()];
  if (whole) return whole;
  const space = flat.indexOf(' ');
  if (space < 0 || !DENY_WORDS.has(flat.slice(0, space).toLowerCase())) return undefined;
  // The reason is the person's own words: kept as typed, cut to the bound the workflow accepts.
  const reason = text.trim().slice(text.trim().search(/\s/)).trim().slice(0, MAX_DENY_REASON_CHARS);
  return { decision: 'deny', reason };
}
