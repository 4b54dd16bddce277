/**
 * `herald approvals log [session]` (docs/human-control.md): the approvals audit — every request for
 * a dangerous command, how it was decided, by whom and from where, and a deny's reason.
 */
import { Command } from 'commander';
import pc from 'picocolors';
import type { Db } from '../../store/db.js';
import type { ApprovalLogRow } from '../../store/approvals.js';
import { print, withDb } from './shared.js';

export interface ApprovalsCommandDeps {
  withDb: <T>(fn: (db: Db) => Promise<T>) => Promise<T>;
  print: (json: boolean, value: unknown, text: string) => void;
}

export function renderApprovalLog(rows: readonly ApprovalLogRow[]): string {
  if (rows.length === 0) return 'no approvals';
  return rows
    .map((r) => {
      const decision = r.decision ?? 'pending';
      const colour =
        decision === 'deny' || decision === 'timeout' ? pc.red : decision === 'pending' ? pc.yellow : pc.green;
      const who = r.approver
        ? ` by ${r.approver}${r.via ? ` via ${r.via}` : ''}`
        : r.decidedBy
          ? ` (${r.decidedBy})`
          : '';
      const asked = r.requester ? ` asked by ${r.requester}` : '';
      const lines = [
        `${r.decidedAt ?? r.requestedAt}  ${colour(decision)}${who}  ${r.sessionId}${asked}`,
        `  ${r.tool}: ${r.command.replace(/\s+/g, ' ').slice(0, 160)}  ${pc.dim(`[${r.rules.join(', ')}] ${r.requestId}`)}`,
      ];
      if (r.denyReason) lines.push(`  reason: ${r.denyReason}`);
      return lines.join('\n');
    })
    .join('\n');
}

export function approvalsCommand(deps: ApprovalsCommandDeps): Command {
  const approvals = new Command('approvals').description('the approvals audit');
  approvals
    .command('log', { isDefault: true })
    .description('who decided each dangerous-command approval, when, from where, and why (newest first)')
    .argument('[session]', 'a session (or conversation) id; all when absent')
    .option('--limit <n>', 'rows at most', '50')
    .option('--json', 'print JSON')
    .action(async (session: string | undefined, o: { limit: string; json?: boolean }) => {
      const { approvalLog } = await import('../../store/approvals.js');
      const rows = await deps.withDb((db) => approvalLog(db, session, Number(o.limit) || 50));
      deps.print(Boolean(o.json), rows, renderApprovalLog(rows));
    });
  return approvals;
}

/** `herald approvals`, reading the store through the shared helper. */
export function registerApprovals(program: Command): void {
  program.addCommand(approvalsCommand({ withDb, print }));
}
