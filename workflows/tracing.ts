/**
 * OpenTelemetry inside the workflow sandbox: a workflow interceptor module, loaded only when the
 * worker traces (runtime/tracing.ts adds it to `interceptors.workflowModules`). Nothing in the
 * workflow imports it, so a worker without tracing runs exactly the code it always ran.
 *
 * Speaks `@temporalio/interceptors-opentelemetry`'s formats (its trace header and exporter sink,
 * through tracing-sandbox.ts), with three differences from its interceptors that matter for Herald:
 *
 * - **One trace per turn.** A conversation is one long-lived workflow; its run span would hold
 *   every turn for days. Each turn gets a `herald.turn` span whose parent is the update or signal
 *   that carried its message (the client's `sendMessage` span), found by the message id the
 *   turn's `recordUserMessage` carries; every activity and child workflow the turn starts is
 *   parented there, found by the `turnId` in its arguments (or the turn running now).
 * - **No change to what the workflow does.** Span and trace ids come from a generator seeded by
 *   the run id, never from `Math.random` (the sandbox's seeded PRNG also makes `uuid4()`), and no
 *   interceptor adds a yield: each returns the very promise `next` returned. A history recorded
 *   with tracing replays without it and the other way round (test/integration/tracing.test.ts).
 * - **Approval waits** are spans from `requestApproval` to the matching `resolveApproval`.
 *
 * Workflow spans are exported through the `exporter` sink, which Temporal does not call during
 * replay, so a span is sent once even when its workflow is replayed on another worker.
 */
import {
  SandboxContextManager,
  SinkSpanExporter,
  extractContextFromHeaders,
  headersWithContext,
} from './tracing-sandbox.js';
import * as otel from '@opentelemetry/api';
import type { IdGenerator } from '@opentelemetry/sdk-trace-base';
import { BasicTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import type {
  ActivityInput,
  Next,
  SignalInput,
  SignalWorkflowInput,
  StartChildWorkflowExecutionInput,
  UpdateInput,
  WorkflowExecuteInput,
  WorkflowInboundCallsInterceptor,
  WorkflowInterceptors,
  WorkflowOutboundCallsInterceptor,
  LocalActivityInput,
} from '@temporalio/workflow';
import { workflowInfo } from '@temporalio/workflow';

/** Ids from FNV-1a over the run id and a counter: deterministic on replay, no PRNG consumed. */
class RunSeededIds implements IdGenerator {
  private n = 0;
  generateTraceId(): string {
    return this.hex(4);
  }
  generateSpanId(): string {
    return this.hex(2);
  }
  private hex(words: number): string {
    const seed = `${workflowInfo().runId}:${this.n++}`;
    let out = '';
    for (let w = 0; w < words; w++) {
      let h = 0x811c9dc5 ^ w;
      for (let i = 0; i < seed.length; i++) h = Math.imul(h ^ seed.charCodeAt(i), 0x01000193) >>> 0;
      out += h.toString(16).padStart(8, '0');
    }
    return /^0+$/.test(out) ? `${out.slice(0, -1)}1` : out;
  }
}

let tracer: otel.Tracer | undefined;
function getTracer(): otel.Tracer {
  if (!tracer) {
    const provider = new BasicTracerProvider({ idGenerator: new RunSeededIds() });
    provider.addSpanProcessor(new SimpleSpanProcessor(new SinkSpanExporter()));
    provider.register({ contextManager: new SandboxContextManager() });
    tracer = provider.getTracer('herald-workflow');
  }
  return tracer;
}

/** End `span` when `p` settles, without handing the caller another promise (no extra yield). */
function endWith<T>(span: otel.Span, p: Promise<T>): Promise<T> {
  p.then(
    () => span.end(),
    (err: unknown) => {
      span.setStatus({ code: otel.SpanStatusCode.ERROR, message: (err as Error)?.message ?? String(err) });
      span.end();
    },
  );
  return p;
}

interface Turn {
  id: string;
  span: otel.Span;
  context: otel.Context;
}

/** Most contexts kept for messages whose turn has not started yet (a queue is bounded too). */
const MAX_PENDING_MESSAGES = 64;

class TurnTraces {
  /** The context each message arrived in (its update or signal span), by message id. */
  private readonly messages = new Map<string, otel.Context>();
  private current: Turn | undefined;
  private readonly approvals = new Map<string, otel.Span>();

  messageArrived(id: string | undefined, context: otel.Context): void {
    if (!id) return;
    this.messages.set(id, context);
    if (this.messages.size > MAX_PENDING_MESSAGES) this.messages.delete(this.messages.keys().next().value!);
  }

  /** The context an outbound call of this turn runs in (a new turn starts at its user message). */
  contextFor(activityType: string, args: unknown[]): otel.Context {
    const a = (typeof args[0] === 'object' && args[0] !== null ? args[0] : {}) as Record<string, unknown>;
    const turnId = typeof a.turnId === 'string' ? a.turnId : undefined;
    if (activityType === 'recordUserMessage' && turnId && this.current?.id !== turnId) {
      const messageId = typeof a.messageId === 'string' ? a.messageId : undefined;
      const parent = (messageId && this.messages.get(messageId)) || otel.context.active();
      if (messageId) this.messages.delete(messageId);
      this.current?.span.end();
      const span = getTracer().startSpan(
        'herald.turn',
        {
          attributes: {
            'herald.turn_id': turnId,
            'herald.turn': typeof a.turn === 'number' ? a.turn : 0,
            'herald.conversation_id': typeof a.conversationId === 'string' ? a.conversationId : '',
            ...(messageId ? { 'herald.message_id': messageId } : {}),
          },
        },
        parent,
      );
      this.current = { id: turnId, span, context: otel.trace.setSpan(parent, span) };
    }
    if (this.current && (turnId === undefined || turnId === this.current.id)) return this.current.context;
    return otel.context.active();
  }

  approvalRequested(args: unknown[], context: otel.Context): void {
    const a = (args[0] ?? {}) as { requestId?: string; tool?: string; reason?: string };
    if (!a.requestId || this.approvals.size >= MAX_PENDING_MESSAGES) return;
    const span = getTracer().startSpan(
      'herald.approval_wait',
      { attributes: { 'herald.tool': a.tool ?? '', 'herald.approval.reason': (a.reason ?? '').slice(0, 200) } },
      context,
    );
    this.approvals.set(a.requestId, span);
  }

  approvalResolved(args: unknown[]): void {
    const a = (args[0] ?? {}) as { requestId?: string; decision?: string };
    const span = a.requestId ? this.approvals.get(a.requestId) : undefined;
    if (!span) return;
    this.approvals.delete(a.requestId!);
    span.setAttribute('herald.approval.decision', a.decision ?? '');
    span.end();
  }

  turnFinished(): void {
    this.current?.span.end();
    this.current = undefined;
  }

  closeAll(): void {
    for (const span of this.approvals.values()) span.end();
    this.approvals.clear();
    this.turnFinished();
  }
}

const turns = new TurnTraces();

function firstArg(args: unknown[]): Record<string, unknown> {
  return (typeof args[0] === 'object' && args[0] !== null ? args[0] : {}) as Record<string, unknown>;
}

class Inbound implements WorkflowInboundCallsInterceptor {
  execute(input: WorkflowExecuteInput, next: Next<WorkflowInboundCallsInterceptor, 'execute'>): Promise<unknown> {
    const parent = extractContextFromHeaders(input.headers) ?? otel.context.active();
    const span = getTracer().startSpan(`RunWorkflow:${workflowInfo().workflowType}`, {}, parent);
    const context = otel.trace.setSpan(parent, span);
    // A message given at the start (no update) is the run's first turn: parented to the run.
    const start = firstArg(input.args);
    if (typeof start.messageId === 'string') turns.messageArrived(start.messageId, context);
    const p = otel.context.with(context, () => next(input));
    p.then(
      () => turns.closeAll(),
      () => turns.closeAll(),
    );
    return endWith(span, p);
  }

  handleUpdate(input: UpdateInput, next: Next<WorkflowInboundCallsInterceptor, 'handleUpdate'>): Promise<unknown> {
    const parent = extractContextFromHeaders(input.headers) ?? otel.context.active();
    const span = getTracer().startSpan(
      `HandleUpdate:${input.name}`,
      { attributes: { temporalUpdateId: input.updateId } },
      parent,
    );
    const context = otel.trace.setSpan(parent, span);
    if (input.name === 'sendMessage') {
      const id = firstArg(input.args).id;
      turns.messageArrived(typeof id === 'string' ? id : input.updateId, context);
    }
    return endWith(
      span,
      otel.context.with(context, () => next(input)),
    );
  }

  handleSignal(input: SignalInput, next: Next<WorkflowInboundCallsInterceptor, 'handleSignal'>): Promise<void> {
    const parent = extractContextFromHeaders(input.headers);
    // Only signals a caller traced get a span (stop, approve, steer from a traced client).
    if (!parent) return next(input);
    const span = getTracer().startSpan(`HandleSignal:${input.signalName}`, {}, parent);
    const context = otel.trace.setSpan(parent, span);
    if (input.signalName === 'userMessage') {
      const id = firstArg(input.args).id;
      if (typeof id === 'string') turns.messageArrived(id, context);
    }
    return endWith(
      span,
      otel.context.with(context, () => next(input)),
    );
  }
}

class Outbound implements WorkflowOutboundCallsInterceptor {
  scheduleActivity(input: ActivityInput, next: Next<WorkflowOutboundCallsInterceptor, 'scheduleActivity'>) {
    return this.activity(input, next);
  }

  scheduleLocalActivity(
    input: LocalActivityInput,
    next: Next<WorkflowOutboundCallsInterceptor, 'scheduleLocalActivity'>,
  ) {
    return this.activity(input, next);
  }

  startChildWorkflowExecution(
    input: StartChildWorkflowExecutionInput,
    next: Next<WorkflowOutboundCallsInterceptor, 'startChildWorkflowExecution'>,
  ): Promise<[Promise<string>, Promise<unknown>]> {
    // A child agent: its run (and its one turn) continue this turn's trace.
    const parent = turns.contextFor('', []);
    const span = getTracer().startSpan(
      `StartChildWorkflow:${input.workflowType}`,
      { attributes: { 'herald.child_workflow_id': input.options.workflowId ?? '' } },
      parent,
    );
    return otel.context.with(otel.trace.setSpan(parent, span), () => {
      const p = next({ ...input, headers: headersWithContext(input.headers) });
      p.then(
        ([, completed]) => {
          completed.then(
            () => span.end(),
            () => span.end(),
          );
        },
        () => span.end(),
      );
      return p;
    });
  }

  signalWorkflow(input: SignalWorkflowInput, next: Next<WorkflowOutboundCallsInterceptor, 'signalWorkflow'>) {
    const parent = turns.contextFor('', []);
    const span = getTracer().startSpan(`SignalWorkflow:${input.signalName}`, {}, parent);
    return otel.context.with(otel.trace.setSpan(parent, span), () =>
      endWith(span, next({ ...input, headers: headersWithContext(input.headers) })),
    );
  }

  private activity<I extends ActivityInput | LocalActivityInput>(
    input: I,
    next: (input: I) => Promise<unknown>,
  ): Promise<unknown> {
    const parent = turns.contextFor(input.activityType, input.args);
    if (input.activityType === 'requestApproval') turns.approvalRequested(input.args, parent);
    if (input.activityType === 'resolveApproval') turns.approvalResolved(input.args);
    const span = getTracer().startSpan(`StartActivity:${input.activityType}`, {}, parent);
    const p = otel.context.with(otel.trace.setSpan(parent, span), () =>
      endWith(span, next({ ...input, headers: headersWithContext(input.headers) })),
    );
    if (input.activityType === 'finishTurn')
      p.then(
        () => turns.turnFinished(),
        () => turns.turnFinished(),
      );
    return p;
  }
}

export const interceptors = (): WorkflowInterceptors => {
  // Registers the propagator before the first header is read (the run's own start headers).
  getTracer();
  return { inbound: [new Inbound()], outbound: [new Outbound()] };
};
