/** The approvals audit and the "always" allowlist. Writes are idempotent (retried activities). */
import { RENAMED_RULES } from '../command-safety/rule-ids.js';
import type { Db } from './db.js';

export interface ApprovalRow {
  requestId: string;
  conversationId: string;
  sessionId: string;
  turnId: string;
  toolCallId: string;
  tool: string;
  command: string;
  rules: string[];
  reason: string;
}

export async function recordApprovalRequest(db: Db, r: ApprovalRow): Promise<void> {
  await db.query(
    `INSERT INTO approvals (request_id, conversation_id, session_id, turn_id, tool_call_id, tool, command, rules, reason)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) ON CONFLICT (request_id) DO NOTHING`,
    [r.requestId, r.conversationId, r.sessionId, r.turnId, r.toolCallId, r.tool, r.command, r.rules, r.reason],
  );
}

export async function recordApprovalDecision(
  db: Db,
  requestId: string,
  decision: string,
  decidedBy: string,
  scope?: string,
  commandKey?: string,
): Promise<void> {
  await db.query(
    `UPDATE approvals SET decision = $2, decided_by = $3, scope = $4, command_key = $5, decided_at = coalesce(decided_at, now())
     WHERE request_id = $1 AND decision IS NULL`,
    [requestId, decision, decidedBy, scope ?? null, commandKey ?? null],
  );
}

export async function allowAlways(db: Db, rules: readonly string[], approvedBy: string): Promise<void> {
  for (const rule of rules) {
    await db.query('INSERT INTO approval_allowlist (rule, approved_by) VALUES ($1, $2) ON CONFLICT (rule) DO NOTHING', [
      rule,
      approvedBy,
    ]);
  }
}

export async function allowlistedRules(db: Db): Promise<Set<string>> {
  const r = await db.query<{ rule: string }>('SELECT rule FROM approval_allowlist');
  // A rule approved under an id it has since been renamed from still covers the rule.
  return new Set(r.rows.map((x) => RENAMED_RULES[x.rule] ?? x.rule));
}
