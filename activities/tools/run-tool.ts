/**
 * The tool activity: load the call's arguments from the transcript, validate them, run the tool,
 * and write its result at the sequence the workflow assigned. Tool failures are results for the
 * model to read, not activity failures; only cancellation and infrastructure errors throw.
 */
import { CancelledFailure, Context } from '@temporalio/activity';
import type { RunToolArgs, RunToolResult } from '../../common/activity-types.js';
import { narrowNetwork } from '../../common/sandbox-policy.js';
import { overBudget, settleGit, snapshotGit } from '../../sandbox/git-guard.js';
import { oneLine } from '../../common/text.js';
import { wrapUntrusted } from '../../shared/untrusted.js';
import { heraldNote, neutraliseMarkers } from '../../shared/markers.js';
import { limitResult } from './result-limits.js';
import type { ActivityDeps } from '../deps.js';
import { keepHeartbeating } from '../deps.js';
import { EventPublisher } from '../events/publisher.js';
import { getMessage } from '../../store/messages.js';
import { sessionMarkerNonce } from '../../store/sessions.js';
import { markToolStarted, writeToolResult } from '../../store/tool-runs.js';
import { untilDbAnswers } from '../../store/outage.js';
import type { ToolDefinition, ToolOutput } from './registry.js';
import { loadMcpTools } from '../../store/mcp-tools.js';
import { mcpToolDefinition } from '../../mcp/tools.js';
import type { ToolDisplay } from './tool-display.js';
import { MAX_DIFF_CHARS, MAX_TAIL_CHARS } from './tool-display.js';
import { redactor } from '../../runtime/secrets.js';
import { DEFAULT_MAX_RESULT_CHARS, parseToolArgs } from './registry.js';
import { ToolHeartbeat } from './heartbeat-details.js';
import { shortHash } from '../../shared/short-hash.js';
import { startToolSpan } from '../tracing.js';
import { confineWorkspace, cwdRefusal } from '../workspace-policy.js';

export const RE_EXECUTED_NOTE =
  '[re-executed after worker restart: an earlier run of this call may have had effects too]';

/**
 * The display fields of a tool's output for the `tool.completed` event: each bounded by the tool
 * (tool-display.ts) and cut again here, and redacted like every other text leaving the worker.
 */
function displayPayload(d: ToolDisplay | undefined): Record<string, unknown> {
  if (!d) return {};
  const text = (s: string | undefined, max: number) =>
    s === undefined ? undefined : redactor().redact(s.slice(0, max));
  const out: Record<string, unknown> = {};
  if (d.exitCode !== undefined) out.exitCode = d.exitCode;
  if (d.killedBy !== undefined) out.killedBy = d.killedBy.slice(0, 40);
  const tail = text(d.outputTail, MAX_TAIL_CHARS);
  if (tail !== undefined) out.outputTail = tail;
  const diff = text(d.diff, MAX_DIFF_CHARS + 200);
  if (diff !== undefined) out.diff = diff;
  return out;
}

export function toolActivities(deps: ActivityDeps) {
  const { db } = deps;

  async function execute(
    a: RunToolArgs,
    ctx: Context,
    beat: ToolHeartbeat,
    tool: ToolDefinition<unknown> | undefined,
    stored: <T>(fn: () => Promise<T>) => Promise<T>,
    where: Awaited<ReturnType<typeof confineWorkspace>>,
  ): Promise<ToolOutput & { fromTool?: boolean }> {
    if (a.call.kind === 'invalid') return { content: a.call.argsError, isError: true };
    if (!tool) return { content: `Tool '${a.call.name}' is not available on this worker.`, isError: true };
    if (tool.agentLevel)
      return { content: `${a.call.name} is handled by the conversation, not the tool runtime.`, isError: true };

    const assistant = await stored(() => getMessage(db, a.sessionId, a.assistantSeq));
    const call = assistant?.tool_calls?.find((c) => c.id === a.call.id);
    if (!call) throw new Error(`tool call ${a.call.id} not found at ${a.sessionId}#${a.assistantSeq}`);
    const parsed = parseToolArgs(tool, call.function.arguments);
    if (!parsed.ok) return { content: parsed.error, isError: true };
    const scope = {
      conversationId: a.conversationId,
      sessionId: a.sessionId,
      turnId: a.turnId,
      tool: a.call.name,
      args: parsed.args,
    };
    // A tools-only worker applies its own policy too: the conversation's network can only be narrower.
    const network = narrowNetwork(deps.config.file.sandbox.network, a.network);
    if (!network.ok) {
      deps.metrics.sandboxDenial('policy');
      return { content: `Refused by this worker's sandbox: ${network.error}`, isError: true };
    }
    if (!where.ok) {
      deps.metrics.sandboxDenial('policy');
      return { content: `Refused by this worker: ${cwdRefusal(where.why, where.policy)}`, isError: true };
    }
    const blocked = await deps.hooks.preToolCall(scope);
    if (blocked) return { content: blocked, isError: true };
    const started = Date.now();
    // File tools write without the sandbox: the git guard checks around them as around a command.
    const git =
      tool.traits.pathScoped && !tool.traits.readOnly && deps.sandbox.status.active
        ? snapshotGit(a.cwd, deps.config.file.sandbox.gitGuard)
        : undefined;
    if (git && !git.scan.complete) return { content: `Refused: ${overBudget(git.maxEntries)}.`, isError: true };
    let gitNotes: string[] | undefined;
    const settle = () => (gitNotes ??= git ? settleGit(a.cwd, git) : []);
    let output: ToolOutput;
    try {
      output = await tool.handler(parsed.args, {
        cwd: where.cwd,
        signal: ctx.cancellationSignal,
        heartbeat: (progress) => {
          if (progress?.output) beat.output(progress.output);
          ctx.heartbeat(beat.details());
        },
        sandbox: deps.sandbox,
        network: network.policy,
        protectedPaths: deps.config.file.sandbox.protectedPaths,
        db,
        conversationId: a.conversationId,
        sessionId: a.sessionId,
      });
    } catch (err) {
      settle(); // part of a write may be on disk
      if (ctx.cancellationSignal.aborted) throw err;
      output = { content: `Error running ${a.call.name}: ${(err as Error).message ?? String(err)}`, isError: true };
    }
    if (settle().length) output = { ...output, content: [output.content, ...settle()].join('\n') };
    const isError = output.isError ?? false;
    const content = await deps.hooks.transformToolResult({ ...scope, result: output.content, isError });
    await deps.hooks.postToolCall({ ...scope, result: content, isError, durationMs: Date.now() - started });
    return {
      content,
      isError,
      fromTool: true,
      ...(output.display ? { display: output.display } : {}),
      ...(output.fileState ? { fileState: output.fileState } : {}),
    };
  }

  /** A built-in tool by name, or an MCP tool by the hash its call descriptor carries. */
  async function toolFor(a: RunToolArgs): Promise<ToolDefinition<unknown> | undefined> {
    const builtin = deps.tools.get(a.call.name);
    if (builtin || a.call.kind !== 'mcp' || !deps.mcp) return builtin;
    const row = (await loadMcpTools(db, [a.call.mcp])).get(a.call.mcp);
    return row ? mcpToolDefinition(a.call.name, row, deps.config.file.mcp, deps.mcp) : undefined;
  }

  return {
    async runTool(a: RunToolArgs): Promise<RunToolResult> {
      const ctx = Context.current();
      const started = Date.now();
      const pub = new EventPublisher(db, a.conversationId, a.turnId, deps.log);
      const beat = new ToolHeartbeat(a.call.name, a.call.summary, started);
      // From the start: waiting for a restarting database is this worker at work, not a dead one.
      const stopHeartbeat = keepHeartbeating(() => ctx.heartbeat(beat.details()), 500);
      const stored = <T>(fn: () => Promise<T>) => untilDbAnswers(fn, { signal: ctx.cancellationSignal });
      let run: number;
      try {
        run = await stored(() => markToolStarted(db, a.sessionId, a.resultSeq, a.call.id, a.call.name));
      } catch (err) {
        stopHeartbeat();
        throw err;
      }
      const reExecuted = run > 1;
      pub.emit('tool.started', { id: a.call.id, name: a.call.name, summary: a.call.summary, reExecuted });
      // A name the model made up is not a label value: unknown tools count as one.
      const metricName = deps.tools.get(a.call.name) ? a.call.name : 'unknown';
      const endFlight = deps.metrics.toolStarted();
      const endSpan = startToolSpan(metricName, a.call.id);
      try {
        let output: ToolOutput & { fromTool?: boolean };
        const def = await stored(() => toolFor(a));
        // The workspace the workflow hands over is decided again here, by this worker's roots: a run
        // that did not get it from prepareConversation (carried state, another worker's) cannot widen them.
        const where = await confineWorkspace(deps, a.cwd);
        try {
          output = await execute(a, ctx, beat, def, stored, where);
        } catch (err) {
          if (ctx.cancellationSignal.aborted) {
            deps.metrics.toolCall(metricName, 'cancelled', Date.now() - started);
            endSpan({ outcome: 'cancelled', durationMs: Date.now() - started });
            pub.emit('tool.completed', {
              id: a.call.id,
              name: a.call.name,
              cancelled: true,
              durationMs: Date.now() - started,
            });
            await pub.flush();
            const reason: unknown = ctx.cancellationSignal.reason;
            throw reason instanceof CancelledFailure ? reason : new CancelledFailure('CANCELLED');
          }
          throw err;
        }
        const toolLimit = def?.maxResultChars ?? DEFAULT_MAX_RESULT_CHARS;
        const limited = await limitResult(output.content, Math.min(toolLimit, a.inlineLimit ?? toolLimit), {
          cwd: where.ok ? where.cwd : undefined,
          toolName: a.call.name,
          fileStem: `${a.sessionId}-${a.resultSeq}-${a.call.name}`,
        });
        // What a tool returns can say anything: it cannot carry Herald's marker, and what comes
        // from files, commands or the network is framed as data.
        const nonce = await stored(() => sessionMarkerNonce(db, a.sessionId));
        let content = neutraliseMarkers(limited.content, nonce);
        if (def?.untrusted && output.fromTool && (def.untrusted === 'workspace' || !output.isError))
          content = wrapUntrusted(a.call.name, content, def.untrusted);
        if (reExecuted) content = `${heraldNote(nonce, RE_EXECUTED_NOTE)}\n${content}`;
        const durationMs = Date.now() - started;
        const isError = output.isError ?? false;
        // The tool has run: a database restart now must not make Temporal run it again.
        const kept = await stored(() =>
          writeToolResult(
            db,
            a.sessionId,
            a.resultSeq,
            run,
            { seq: a.resultSeq, role: 'tool', content, toolCallId: a.call.id, toolName: a.call.name, turnId: a.turnId },
            { isError, durationMs },
          ),
        );
        if (!kept)
          deps.log.warn(
            { sessionId: a.sessionId, seq: a.resultSeq, tool: a.call.name, run },
            'a later run of this tool call started meanwhile: its result is kept, not this one',
          );
        // Refused: the call never ran (bad arguments, unknown tool, a hook or the sandbox policy said no).
        const outcome = !isError ? 'ok' : output.fromTool ? 'error' : 'refused';
        deps.metrics.toolCall(metricName, outcome, durationMs);
        endSpan({ outcome, durationMs, exitCode: output.display?.exitCode ?? undefined });
        const preview = oneLine(content, 200);
        pub.emit('tool.completed', {
          id: a.call.id,
          name: a.call.name,
          durationMs,
          isError,
          preview,
          ...displayPayload(output.display),
        });
        await pub.flush();
        // The loop guard compares results by this key (the result as the tool gave it, before Herald's
        // notes), without a command's run time: two runs of one failing test differ only there.
        const resultKey = shortHash(`${isError ? 'error' : 'ok'}\u0000${withoutRunTime(limited.content)}`);
        return {
          isError,
          preview,
          durationMs,
          reExecuted,
          chars: content.length,
          resultKey,
          ...(output.fileState && !isError ? { fileState: output.fileState } : {}),
        };
      } finally {
        endSpan({ outcome: 'error', durationMs: Date.now() - started });
        endFlight();
        stopHeartbeat();
      }
    },
  };
}

/** A terminal result's status line without its duration (`[exit code 1, 0.2s]` → `[exit code 1]`). */
export function withoutRunTime(content: string): string {
  return content.replace(/(\[(?:exit code -?\d+|killed [^\]\n]*?)), \d+(?:\.\d+)?s\]/g, '$1]');
}
