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

/** Who answered, where from, a deny's reason, and whose message asked (the approval trail). */
export interface ApprovalTrail {
  approver?: string | undefined;
  via?: string | undefined;
  denyReason?: string | undefined;
  requester?: string | undefined;
}

const MAX_TRAIL_CHARS = { approver: 200, via: 40, denyReason: 500, requester: 200 } as const;
const bounded = (text: string | undefined, max: number) => (text === undefined ? null : text.slice(0, max));

export async function recordApprovalDecision(
  db: Db,
  requestId: string,
  decision: string,
  decidedBy: string,
  scope?: string,
  commandKey?: string,
  trail: ApprovalTrail = {},
): Promise<void> {
  await db.query(
    `UPDATE approvals SET decision = $2, decided_by = $3, scope = $4, command_key = $5, decided_at = coalesce(decided_at, now()),
       approver = $6, approver_via = $7, deny_reason = $8, requester = $9
     WHERE request_id = $1 AND decision IS NULL`,
    [
      requestId,
      decision,
      decidedBy,
      scope ?? null,
      commandKey ?? null,
      bounded(trail.approver, MAX_TRAIL_CHARS.approver),
      bounded(trail.via, MAX_TRAIL_CHARS.via),
      bounded(trail.denyReason, MAX_TRAIL_CHARS.denyReason),
      bounded(trail.requester, MAX_TRAIL_CHARS.requester),
    ],
  );
}

export interface ApprovalLogRow {
  requestId: string;
  sessionId: string;
  tool: string;
  command: string;
  rules: string[];
  requestedAt: string;
  decision: string | null;
  decidedBy: string | null;
  decidedAt: string | null;
  approver: string | null;
  via: string | null;
  denyReason: string | null;
  requester: string | null;
}

/** The newest approvals first, of one conversation (or session of it) or of all, at most `limit`. */
export async function approvalLog(db: Db, session: string | undefined, limit = 50): Promise<ApprovalLogRow[]> {
  const r = await db.query<Record<string, unknown>>(
    `SELECT request_id, session_id, tool, command, rules, requested_at, decision, decided_by, decided_at,
            approver, approver_via, deny_reason, requester
       FROM approvals WHERE ($1::text IS NULL OR conversation_id = $1 OR session_id = $1)
      ORDER BY requested_at DESC LIMIT $2`,
    [session ?? null, Math.max(1, Math.min(1000, limit))],
  );
  const time = (v: unknown) => (v instanceof Date ? v.toISOString() : typeof v === 'string' ? v : null);
  return r.rows.map((x) => ({
    requestId: String(x.request_id),
    sessionId: String(x.session_id),
    tool: String(x.tool),
    command: String(x.command),
    rules: (x.rules as string[] | null) ?? [],
    requestedAt: time(x.requested_at) ?? '',
    decision: (x.decision as string | null) ?? null,
    decidedBy: (x.decided_by as string | null) ?? null,
    decidedAt: time(x.decided_at),
    approver: (x.approver as string | null) ?? null,
    via: (x.approver_via as string | null) ?? null,
    denyReason: (x.deny_reason as string | null) ?? null,
    requester: (x.requester as string | null) ?? null,
  }));
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
