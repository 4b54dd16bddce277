/**
 * The conversation's signals, updates and query (docs/temporal-cli.md). Signals cannot be refused, so a
 * signal that is malformed, undecodable (workflows/payload-converter.ts), over a bound or too late
 * is logged and ignored; an update is refused by its validator with a message saying why, so the
 * caller knows. Nothing here can fail a workflow task.
 */
import { condition, log, setHandler, uuid4 } from '@temporalio/workflow';
import {
  MOVING_RUNS,
  answerClarifySchema,
  approveSchema,
  compressSchema,
  describeZodError,
  endSchema,
  sendMessageSchema,
  stopSchema,
  userMessageSchema,
} from '../common/contract.js';
import {
  answerClarifyUpdate,
  approveSignal,
  approveUpdate,
  compressUpdate,
  endSignal,
  sendMessageUpdate,
  stateQuery,
  steerSignal,
  stopSignal,
  upgradeSignal,
  userMessageSignal,
} from './definitions.js';
import { isUndecodable } from './payload-converter.js';
import type { Run } from './run.js';
import { registerSetModel } from './set-model.js';
import { registerReloadTools } from './mcp.js';
import { registerCheckpointUpdates } from './checkpoints.js';
import { findResult, stateView } from './state.js';
import type { ApprovalRequest } from './state.js';
import type { ApproveInput } from '../common/contract.js';
import { approverRefusal } from '../common/approval-policy.js';
import {
  childApprovalsView,
  childApproverRefusal,
  findChildApproval,
  forwardApproval,
  openChildApprovals,
  registerChildApprovals,
} from './child-approvals.js';

/** The longest `end` reason kept: it is the end activity's input. */
const MAX_END_REASON_CHARS = 500;

/** Why a payload failed: undecodable, or the schema's first complaint. */
function problem(payload: unknown, error: { issues: unknown[] } | undefined, name: string): string {
  if (isUndecodable(payload)) return `its payload could not be decoded (${payload.encoding}: ${payload.reason})`;
  return error ? describeZodError(error as never, name) : 'invalid';
}

/** A signal handler that, once it ran (a recorded input), lets continue-as-new be decided (Run.checkDue). */
function recorded<A extends unknown[]>(run: Run, handle: (...args: A) => void): (...args: A) => void {
  return (...args: A): void => {
    try {
      handle(...args);
    } finally {
      run.checkDue();
    }
  };
}

/** Every signal, update and query of the conversation. */
export function registerHandlers(run: Run): void {
  registerMessages(run);
  registerControl(run);
  registerApprovals(run);
  registerChildApprovals(run);
  registerSetModel(run);
  registerReloadTools(run);
  registerCompress(run);
  registerCheckpointUpdates(run);
  registerStateQuery(run);
}

/** New messages: the `userMessage` and `steer` signals and the `sendMessage` update. */
function registerMessages(run: Run): void {
  const { state } = run;
  setHandler(
    userMessageSignal,
    recorded(run, (payload: unknown) => {
      const parsed = userMessageSchema.safeParse(payload);
      if (!parsed.success) return run.noteIgnored('userMessage signal', problem(payload, parsed.error, 'userMessage'));
      if (run.ended) return run.noteIgnored('userMessage signal', 'the conversation has ended');
      const text = typeof parsed.data === 'string' ? parsed.data : parsed.data.text;
      const givenId = typeof parsed.data === 'string' ? undefined : parsed.data.id;
      const id = givenId ?? uuid4();
      if (run.isKnownMessage(id)) return;
      if (run.current && state.busyPolicy === 'steer') {
        const refused = run.steerRefusal(text);
        if (refused) run.noteIgnored(`userMessage ${id} (as steer)`, refused);
        else {
          state.pendingSteer.push(text);
          // Sent again by id, it is answered by the turn it steered, not run a second time.
          if (givenId && run.current.steeredIds.length < 64) run.current.steeredIds.push(givenId);
        }
        return;
      }
      const refused = run.queueRefusal(text);
      if (refused) return run.noteIgnored(`userMessage ${id}`, refused);
      run.enqueue({ id, text, awaited: false });
    }),
  );

  setHandler(
    steerSignal,
    recorded(run, (payload: unknown) => {
      const parsed = userMessageSchema.safeParse(payload);
      if (!parsed.success || run.ended)
        return run.noteIgnored(
          'steer signal',
          run.ended ? 'the conversation has ended' : problem(payload, parsed.error, 'steer'),
        );
      const text = typeof parsed.data === 'string' ? parsed.data : parsed.data.text;
      const refused = run.current ? run.steerRefusal(text) : run.queueRefusal(text);
      if (refused) run.noteIgnored('steer signal', refused);
      else if (run.current) state.pendingSteer.push(text);
      else run.enqueue({ id: uuid4(), text, awaited: false });
    }),
  );

  setHandler(
    sendMessageUpdate,
    async (msg) => {
      run.checkDue();
      const id = msg.id ?? uuid4();
      const earlier = findResult(state, id);
      if (earlier) return earlier;
      const queued = state.queue.find((m) => m.id === id);
      if (queued) queued.awaited = true;
      else if (!run.isKnownMessage(id))
        run.enqueue({ id, text: msg.text, awaited: true, ...(msg.by ? { by: msg.by } : {}) });
      await condition(() => run.delivered.has(id) || findResult(state, id) !== undefined);
      const full = run.delivered.get(id);
      run.delivered.delete(id);
      return full ?? findResult(state, id)!;
    },
    {
      validator: (msg) => {
        const parsed = sendMessageSchema.safeParse(msg);
        if (!parsed.success) throw new Error(`invalid sendMessage: ${problem(msg, parsed.error, 'sendMessage')}`);
        if (run.ended) throw new Error('the conversation has ended; start a new session');
        const id = parsed.data.id;
        // A message already here is answered as before, whatever the bounds say now.
        if (id !== undefined && run.isKnownMessage(id)) return;
        if (run.draining()) throw new Error(MOVING_RUNS);
        const refused = run.queueRefusal(parsed.data.text);
        if (refused) throw new Error(`message refused: ${refused}`);
      },
    },
  );
}

/** `stop` (the running turn, a compression, background children) and `end`. */
function registerControl(run: Run): void {
  const { state } = run;
  setHandler(
    stopSignal,
    recorded(run, (payload?: unknown) => {
      const parsed = stopSchema.safeParse(payload);
      if (!parsed.success) log.warn('stop signal payload ignored (expected a reason string)');
      const kind = parsed.success && parsed.data && typeof parsed.data === 'object' ? parsed.data.kind : undefined;
      run.stopBackground();
      if (run.current) run.current.requestStop(kind ?? 'user');
      else if (run.compressScope) run.compressScope.cancel();
      else if (state.subagent && !run.ended) {
        // A child agent stopped before its task began: it ends without running it.
        run.ended = true;
        run.endReason = 'stopped by the delegating agent';
        run.refreshDetails();
      } else log.info('stop signal while idle: nothing to interrupt');
    }),
  );

  setHandler(
    endSignal,
    recorded(run, (payload?: unknown) => {
      const parsed = endSchema.safeParse(payload);
      const reason =
        parsed.success && parsed.data
          ? typeof parsed.data === 'string'
            ? parsed.data
            : parsed.data.reason
          : undefined;
      run.ended = true;
      // A signal may carry up to 2 MB; the reason goes on into the end activity's input.
      run.endReason = reason !== undefined ? reason.slice(0, MAX_END_REASON_CHARS) : 'ended by user';
      run.refreshDetails();
    }),
  );

  // Its payload is ignored: the signal only gives the run a recorded task on its own build, in which
  // `recorded` decides whether a new current build makes a move due. Idle, the run then continues
  // as new onto that build; mid-turn, it moves when the turn ends (new messages wait for the move).
  setHandler(
    upgradeSignal,
    recorded(run, () => {
      if (run.upgradeDue()) log.info('a new build is current: moving to it once the run is idle');
    }),
  );
}

/** A person's answers: `approve` (signal or update) and `answerClarify`. */
function registerApprovals(run: Run): void {
  const { state } = run;
  /** The answer, and who gave it from where (the approvals audit). */
  const decide = (req: ApprovalRequest, input: ApproveInput) => {
    req.decision = input.decision;
    if (input.scope) req.scope = input.scope;
    if (input.reason) req.denyReason = input.reason;
    if (input.by) req.approver = input.by;
    if (input.via) req.via = input.via;
  };
  const findApproval = (id: string) => state.pendingApprovals.find((a) => a.requestId === id && !a.decision);
  setHandler(
    approveSignal,
    recorded(run, (payload: unknown) => {
      const parsed = approveSchema.safeParse(payload);
      if (!parsed.success) return run.noteIgnored('approve signal', problem(payload, parsed.error, 'approve'));
      const req = findApproval(parsed.data.requestId);
      const child = req ? undefined : findChildApproval(run, parsed.data.requestId);
      if (child) {
        // A child agent's request: the child gets the answer (workflows/child-approvals.ts).
        const no = childApproverRefusal(run, child, parsed.data.by);
        if (no) return run.noteIgnored('approve signal', no);
        void forwardApproval(child, parsed.data).catch((err: unknown) =>
          run.noteIgnored('approve signal', err instanceof Error ? err.message : String(err)),
        );
        return;
      }
      const refused = req && approverRefusal(state.approvalPolicy, req.requester, parsed.data.by);
      if (!req) run.noteIgnored('approve signal', `no pending request ${parsed.data.requestId.slice(0, 300)}`);
      else if (refused) run.noteIgnored('approve signal', refused);
      else decide(req, parsed.data);
    }),
  );
  setHandler(
    approveUpdate,
    async (input) => {
      run.checkDue();
      const req = findApproval(input.requestId);
      if (req) decide(req, input);
      else await forwardApproval(findChildApproval(run, input.requestId)!, input);
      return { requestId: input.requestId, decision: input.decision, scope: input.scope ?? 'command' };
    },
    {
      validator: (input) => {
        const parsed = approveSchema.safeParse(input);
        if (!parsed.success) throw new Error(`invalid approve: ${problem(input, parsed.error, 'approve')}`);
        const req = findApproval(parsed.data.requestId);
        const child = req ? undefined : findChildApproval(run, parsed.data.requestId);
        if (child) {
          const refused = childApproverRefusal(run, child, parsed.data.by);
          if (refused) throw new Error(refused);
          return;
        }
        if (!req) {
          const pending = [
            ...state.pendingApprovals.filter((a) => !a.decision).map((a) => a.requestId),
            ...openChildApprovals(run).map((a) => a.requestId),
          ];
          throw new Error(
            `no pending approval ${parsed.data.requestId.slice(0, 300)}${pending.length ? ` (pending: ${pending.join(', ')})` : ''}`,
          );
        }
        const refused = approverRefusal(state.approvalPolicy, req.requester, parsed.data.by);
        if (refused) throw new Error(refused);
      },
    },
  );
  setHandler(
    answerClarifyUpdate,
    (input) => {
      run.checkDue();
      const req = state.clarify!;
      req.answer = input.answer;
      return { requestId: req.requestId };
    },
    {
      validator: (input) => {
        const parsed = answerClarifySchema.safeParse(input);
        if (!parsed.success) throw new Error(`invalid answerClarify: ${problem(input, parsed.error, 'answerClarify')}`);
        const req = state.clarify;
        if (!req || req.answer !== undefined) throw new Error('no clarify question is waiting for an answer');
        if (parsed.data.requestId && parsed.data.requestId !== req.requestId)
          throw new Error(`the pending question is ${req.requestId}, not ${parsed.data.requestId.slice(0, 300)}`);
      },
    },
  );
}

/** Manual compression (`/compress [focus]`) runs between turns, never inside one. */
function registerCompress(run: Run): void {
  // Manual compression (`/compress [focus]`) runs between turns, never inside one.
  setHandler(
    compressUpdate,
    async (input) => {
      run.checkDue();
      const id = uuid4();
      const parsed = compressSchema.safeParse(input);
      run.compressions.push({ id, focus: parsed.success ? (parsed.data?.focus ?? undefined) : undefined });
      await condition(() => run.compressResults.has(id));
      const r = run.compressResults.get(id)!;
      run.compressResults.delete(id);
      return r;
    },
    {
      validator: (input) => {
        const parsed = compressSchema.safeParse(input);
        if (!parsed.success) throw new Error(`invalid compress: ${problem(input, parsed.error, 'compress')}`);
        if (run.ended) throw new Error('the conversation has ended');
        if (run.compressions.length >= 8) throw new Error('8 compressions are already waiting');
      },
    },
  );
}

function registerStateQuery(run: Run): void {
  const { state } = run;
  setHandler(stateQuery, () =>
    stateView(
      state,
      run.current
        ? {
            iteration: run.current.iteration,
            status: run.current.status,
            currentTools: run.current.currentTools,
            children: run.current.children,
          }
        : run.compressing
          ? { iteration: 0, status: 'compressing', currentTools: [], children: [] }
          : undefined,
      run.runTurns,
      run.ended,
      run.backgroundSessions(),
      run.ignored,
      childApprovalsView(run),
    ),
  );
}
