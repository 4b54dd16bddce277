/**
 * Approvals and clarify questions (docs/human-control.md): the workflow waits for the human; these
 * activities record the audit trail, publish the request events clients prompt on, persist
 * "always" decisions, and (in `smart` mode) ask the auxiliary model whether a command is low-risk.
 */
import { Context } from '@temporalio/activity';
import type {
  ApprovalRequestArgs,
  ApprovalResolutionArgs,
  AssessCommandArgs,
  AssessCommandResult,
  ChildApprovalEventArgs,
  ClarifyRequestArgs,
  ToolResultArgs,
} from '../common/activity-types.js';
import { NOT_RUN_REASONS } from '../common/activity-types.js';
import { oneLine } from '../common/text.js';
import type { ActivityDeps } from './deps.js';
import { EventPublisher } from './events/publisher.js';
import { AuxiliaryCalls, withReport } from './model/auxiliary-calls.js';
import { allowAlways, recordApprovalDecision, recordApprovalRequest } from '../store/approvals.js';
import { getMessage, writeMessage } from '../store/messages.js';
import { commandAllowKey } from '../command-safety/approval-check.js';
import type { Db } from '../store/db.js';

const SMART_PROMPT = [
  'You review shell commands an AI coding agent wants to run in a software project workspace.',
  'Answer APPROVE when the command is clearly low-risk there (it only touches build outputs, caches, temporary files or',
  'the project itself in an easily recoverable way). Answer ESCALATE when it could destroy data, affect the system or',
  'other users, leak secrets, or you are not sure. Reply with one word: APPROVE or ESCALATE.',
].join(' ');

export function approvalActivities(deps: ActivityDeps) {
  const { db } = deps;
  return {
    async requestApproval(a: ApprovalRequestArgs): Promise<void> {
      // The workflow carries a bounded preview; the human sees the whole command, from the stored call.
      const command =
        (a.assistantSeq !== undefined ? await fullCommand(db, a.sessionId, a.assistantSeq, a.toolCallId) : undefined) ??
        a.command;
      await recordApprovalRequest(db, {
        requestId: a.requestId,
        conversationId: a.conversationId,
        sessionId: a.sessionId,
        turnId: a.turnId,
        toolCallId: a.toolCallId,
        tool: a.tool,
        command,
        rules: a.rules,
        reason: a.reason,
      });
      const pub = new EventPublisher(db, a.conversationId, a.turnId, deps.log);
      pub.emit('approval.requested', requestedEvent(a, command));
      await pub.flush();
      deps.metrics.approvalRequested();
    },

    /**
     * A child agent's request in its parent's stream (`delegation.askPerson`): `herald chat` on the
     * parent prompts for it like for its own. The command shown is the whole one the child stored.
     */
    async publishChildApproval(a: ChildApprovalEventArgs): Promise<void> {
      const command = (await storedCommand(db, a.requestId, a.childSessionId)) ?? a.command;
      const pub = new EventPublisher(db, a.conversationId, a.turnId, deps.log);
      pub.emit('approval.requested', { ...requestedEvent(a, command), child: a.childSessionId });
      await pub.flush();
    },

    async resolveApproval(a: ApprovalResolutionArgs): Promise<void> {
      await recordApprovalDecision(db, a.requestId, a.decision, a.decidedBy, a.scope, a.commandKey, {
        approver: a.approver,
        via: a.via,
        denyReason: a.denyReason,
        requester: a.requester,
      });
      deps.metrics.approvalResolved(a.decision);
      if (a.decision === 'always')
        await allowAlways(
          db,
          a.scope === 'rule' || !a.commandKey ? a.rules : [commandAllowKey(a.commandKey)],
          a.decidedBy,
        );
      const pub = new EventPublisher(db, a.conversationId, a.turnId, deps.log);
      pub.emit('status', {
        kind: 'approval',
        requestId: a.requestId,
        decision: a.decision,
        scope: a.scope ?? 'rule',
        ...(a.approver ? { approver: a.approver } : {}),
        ...(a.via ? { via: a.via } : {}),
        message: `approval ${a.requestId}: ${a.decision}${a.decision === 'session' || a.decision === 'always' ? ` (${a.scope === 'rule' || !a.commandKey ? `every ${a.rules.join(', ')} command` : 'this command'})` : ''}`,
      });
      await pub.flush();
    },

    async requestClarify(a: ClarifyRequestArgs): Promise<void> {
      const pub = new EventPublisher(db, a.conversationId, a.turnId, deps.log);
      pub.emit('clarify.requested', {
        requestId: a.requestId,
        question: a.question,
        choices: a.choices,
        timeoutSeconds: a.timeoutSeconds,
      });
      await pub.flush();
    },

    /**
     * `smart` mode: the auxiliary model approves low-risk commands; anything else goes to the human.
     * The request is accounted like every model call (activities/model/auxiliary-calls.ts): its ledger
     * row, and the totals on the result (or on the cancellation) for the workflow to count.
     */
    async assessCommand(a: AssessCommandArgs): Promise<AssessCommandResult> {
      const ctx = Context.current();
      const calls = new AuxiliaryCalls(deps, {
        conversationId: a.conversationId,
        sessionId: a.sessionId,
        turnId: a.turnId,
        seq: a.seq,
        purpose: 'approval',
        spendLimit: a.spendLimit,
      });
      let verdict: 'approve' | 'escalate';
      try {
        const r = await calls.call(
          a.auxiliary,
          {
            model: a.auxiliary.model,
            messages: [
              { role: 'system', content: SMART_PROMPT },
              { role: 'user', content: `Command:\n${a.command}\n\nFlagged because: ${a.description}` },
            ],
            tools: [],
            maxOutputTokens: 16,
          },
          ctx.cancellationSignal,
          () => ctx.heartbeat(),
        );
        verdict = /^\s*approve\b/i.test(r.content) ? 'approve' : 'escalate';
      } catch (err) {
        if (ctx.cancellationSignal.aborted) throw withReport(err, await calls.report(), ctx.cancellationSignal);
        deps.log.warn({ err: String(err) }, 'smart approval failed; asking the user');
        verdict = 'escalate';
      }
      return { verdict, ...(await calls.report()) };
    },

    /** A tool result the workflow produced itself (blocked, denied, a clarify answer). */
    async recordToolResult(a: ToolResultArgs): Promise<void> {
      await writeMessage(db, a.sessionId, {
        seq: a.seq,
        role: 'tool',
        content: a.content,
        toolCallId: a.toolCallId,
        toolName: a.toolName,
        turnId: a.turnId,
      });
      const pub = new EventPublisher(db, a.conversationId, a.turnId, deps.log);
      // A call that did not run says so (and what it was: no `tool.started` line came before it).
      const notRun = a.notRun && NOT_RUN_REASONS.includes(a.notRun) ? a.notRun : undefined;
      pub.emit('tool.completed', {
        id: a.toolCallId,
        name: a.toolName,
        durationMs: a.durationMs ?? 0,
        isError: a.isError,
        preview: oneLine(a.content, 200),
        ...(notRun ? { notRun, summary: oneLine(a.summary ?? a.toolName, 120) } : {}),
      });
      await pub.flush();
    },
  };
}

/** The command of a stored terminal call, whole. */
async function fullCommand(db: Db, sessionId: string, seq: number, callId: string): Promise<string | undefined> {
  const m = await getMessage(db, sessionId, seq);
  const call = m?.tool_calls?.find((c) => c.id === callId);
  if (!call) return undefined;
  try {
    const args = JSON.parse(call.function.arguments) as { command?: unknown };
    return typeof args.command === 'string' ? args.command : undefined;
  } catch {
    return undefined;
  }
}

/** The command of a request as its conversation recorded it. */
async function storedCommand(db: Db, requestId: string, conversationId: string): Promise<string | undefined> {
  const r = await db.query<{ command: string }>(
    'SELECT command FROM approvals WHERE request_id = $1 AND conversation_id = $2',
    [requestId, conversationId],
  );
  return r.rows[0]?.command;
}

/** What `approval.requested` tells watching clients (`herald chat` prompts from it). */
function requestedEvent(
  a: { requestId: string; tool: string; reason: string; rules: string[]; timeoutSeconds: number },
  command: string,
): Record<string, unknown> {
  return {
    requestId: a.requestId,
    tool: a.tool,
    command,
    commandChars: command.length,
    reason: a.reason,
    rules: a.rules,
    timeoutSeconds: a.timeoutSeconds,
    choices: ['once', 'session', 'always', 'deny'],
    scopes: ['command', 'rule'],
  };
}
