/**
 * The compression activity (docs/long-conversations.md): the context engine (context-engine.ts) shortens the
 * transcript; this writes the result to a new session linked to the old one, with a rebuilt
 * system prompt. Idempotent: the new session is written in one transaction, and a retry finds it.
 */
import { Context } from '@temporalio/activity';
import type { AuxiliaryReport, CompressContextArgs, CompressContextResult } from '../common/activity-types.js';
import type { PlannedMessage } from '../shared/compression.js';
import type { CompressionSettings } from '../common/context-window.js';
import { contextWindowOf } from '../common/context-window.js';
import type { ChatMessage } from '../common/messages.js';
import { emptyUsage } from '../common/messages.js';
import type { ProviderRef } from '../common/providers.js';
import { repairMessageOrder } from '../shared/role-order.js';
import { confineWorkspace } from './workspace-policy.js';
import type { ContextEngine } from './context-engine.js';
import type { CompressionOutcome } from './metrics.js';
import { startCompressionSpan } from './tracing.js';
import { defaultEngine } from './context-engine.js';
import type { ActivityDeps } from './deps.js';
import { keepHeartbeating } from './deps.js';
import { EventPublisher } from './events/publisher.js';
import { AuxiliaryCalls, SpendLimitReached, withReport } from './model/auxiliary-calls.js';
import { storageFailure } from './model/storage-failure.js';
import { buildSystemPrompt } from './prompt/system-prompt.js';
import { skillSettings, skillsForPrompt } from '../skills/discover.js';
import type { LeftOut } from '../common/left-out.js';
import { withTransaction } from '../store/db.js';
import { memorySnapshot } from '../store/memory.js';
import { loadTranscript, nextSeq } from '../store/messages.js';
import { getSession, sessionMarkerNonce } from '../store/sessions.js';
import { estimateMessageTokens, estimateRequestTokens } from './tokens.js';
import { requestSchemas } from './tools/schema-economy.js';

const MAX_SUMMARY_INPUT_CHARS = 400_000;

export function compressionActivities(
  deps: ActivityDeps,
  settings: CompressionSettings,
  engine: ContextEngine = defaultEngine,
) {
  const { db, config } = deps;

  /** One summary request; the ledger row is written whatever its outcome (activities/model/auxiliary-calls.ts). */
  async function summarise(
    calls: AuxiliaryCalls,
    ref: ProviderRef,
    prompt: string,
    input: string,
    maxTokens: number,
  ): Promise<string> {
    const ctx = Context.current();
    const r = await calls.call(
      ref,
      {
        model: ref.model,
        messages: [
          { role: 'system', content: prompt },
          {
            role: 'user',
            content: input.length > MAX_SUMMARY_INPUT_CHARS ? input.slice(-MAX_SUMMARY_INPUT_CHARS) : input,
          },
        ],
        tools: [],
        maxOutputTokens: maxTokens,
      },
      ctx.cancellationSignal,
      () => ctx.heartbeat({ phase: 'summary' }),
    );
    if (!r.content.trim()) throw new Error('the summariser returned an empty summary');
    return r.content;
  }

  return {
    async compressContext(a: CompressContextArgs): Promise<CompressContextResult> {
      const ctx = Context.current();
      const stopHeartbeat = keepHeartbeating(() => ctx.heartbeat({ phase: 'compress' }), 500);
      const pub = new EventPublisher(db, a.conversationId, a.turnId, deps.log);
      const started = Date.now();
      let outcome: CompressionOutcome | undefined = 'error';
      const endSpan = startCompressionSpan(a.reason);
      let tokens: { tokensBefore?: number; tokensAfter?: number } = {};
      // The summary requests: each a ledger row, their totals on the result (or failure) for the workflow.
      const calls = new AuxiliaryCalls(deps, {
        conversationId: a.conversationId,
        sessionId: a.sessionId,
        turnId: a.turnId,
        seq: a.beforeSeq,
        purpose: 'compression',
        spendLimit: a.spendLimit,
      });
      try {
        const existing = await getSession(db, a.newSessionId).catch((err: unknown) => {
          throw storageFailure(err, 'reading sessions');
        });
        if (existing) {
          outcome = undefined; // counted by the attempt that wrote it
          return { ...(await describeExisting(a, existing.id)), ...(await calls.report()) };
        }
        const session = await getSession(db, a.sessionId);
        if (!session) throw new Error(`session ${a.sessionId} does not exist`);
        const transcript = await loadTranscript(db, a.sessionId, a.beforeSeq);
        const model = a.provider.model;
        const schemas = requestSchemas(deps.tools, a.tools, a.provider, deps.config.file.tools.schemas);
        const window = contextWindowOf(model, a.provider.contextLength);
        const system: ChatMessage = { role: 'system', content: session.system_prompt ?? '' };
        const planned: PlannedMessage[] = transcript.map((m) => ({ ...m, tokens: estimateMessageTokens(m, model) }));
        // The request's count from the per-message counts (tokenising a long transcript once, not twice).
        const tokensBefore =
          estimateRequestTokens([system], schemas, model) + planned.reduce((n, m) => n + m.tokens, 0);
        // Watchers hear "compressing" when the engine first asks for a summary (or, for an engine that
        // needs no model, when it returns), not when nothing turns out to be worth compressing.
        let announced = false;
        const announce = async () => {
          if (announced) return;
          announced = true;
          pub.emit('status', {
            kind: 'compression',
            state: 'started',
            reason: a.reason,
            tokens: tokensBefore,
            window,
            engine: engine.name,
          });
          await pub.flush();
        };
        const engineOut = await engine.compress({
          transcript: planned,
          window,
          reason: a.reason,
          focus: a.focus,
          firstCompression: a.firstCompression,
          todos: a.todos ?? [],
          settings,
          log: deps.log,
          // The auxiliary model first, the main model once if that fails.
          summarise: async (prompt: string, input: string, maxTokens: number) => {
            await announce();
            try {
              return await summarise(calls, a.auxiliary, prompt, input, maxTokens);
            } catch (first) {
              if (
                ctx.cancellationSignal.aborted ||
                first instanceof SpendLimitReached ||
                (a.auxiliary.model === a.provider.model && a.auxiliary.baseUrl === a.provider.baseUrl)
              )
                throw first;
              return await summarise(calls, a.provider, prompt, input, maxTokens);
            }
          },
        });
        if (ctx.cancellationSignal.aborted) throw ctx.cancellationSignal.reason;
        if (!engineOut) {
          outcome = 'skipped';
          return {
            ...(await calls.report()),
            compressed: false,
            sessionId: a.sessionId,
            nextSeq: a.beforeSeq,
            tokensBefore,
            tokensAfter: tokensBefore,
            messagesBefore: transcript.length,
            messagesAfter: transcript.length,
            fallbackSummary: false,
          };
        }
        await announce();
        const fallback = engineOut.fallbackSummary;
        const body = engineOut.messages;
        // Keep every tool call paired with its result, and the order legal.
        const compacted = repairMessageOrder(body);
        // The workspace's context files and skills are read only from a folder this worker's roots allow.
        const where = await confineWorkspace(deps, session.cwd ?? undefined);
        const cwd = where.ok ? where.cwd : (session.cwd ?? '');
        const skills = where.ok
          ? await skillsForPrompt(skillSettings(config), cwd, a.tools, (f, m) =>
              deps.log.warn({ ...f, sessionId: a.newSessionId }, m),
            )
          : undefined;
        if (!where.ok)
          deps.log.warn(
            { sessionId: a.sessionId, why: where.why },
            'compression: the workspace is refused; no context files',
          );
        const leftOut: LeftOut[] = [];
        const systemPrompt = buildSystemPrompt({
          home: config.home,
          cwd,
          ...(where.ok ? {} : { skipContextFiles: true }),
          platform: session.source === 'cli' ? 'cli' : 'api',
          systemMessage: config.file.agent.systemMessage,
          model: a.provider.model,
          provider: a.provider.provider,
          now: new Date(),
          memory: await memorySnapshot(db),
          // The compressed session goes on with the same marker (the new row copies it).
          markerNonce: await sessionMarkerNonce(db, a.sessionId),
          ...(skills ? { skills: skills.skills, skillsLeftOut: skills.leftOut } : {}),
          leftOut,
        });
        const title = `${(session.title ?? a.conversationId).replace(/ #\d+$/, '')} #${a.compressionNumber + 2}`;
        const report = await calls.report();
        await writeCompressedSession(deps, a, session.source, session.cwd, title, systemPrompt, compacted, report);
        const tokensAfter = estimateRequestTokens(
          [{ role: 'system', content: systemPrompt }, ...compacted],
          schemas,
          model,
        );
        pub.emit('status', {
          kind: 'compression',
          state: 'done',
          reason: a.reason,
          message: `context compressed: ${tokensBefore} → ${tokensAfter} tokens (${transcript.length} → ${compacted.length} messages)${fallback ? '; the summariser failed, a mechanical summary was used' : ''}`,
          newSessionId: a.newSessionId,
        });
        await pub.flush();
        outcome = fallback ? 'fallback' : 'compressed';
        tokens = { tokensBefore, tokensAfter };
        return {
          ...report,
          compressed: true,
          sessionId: a.newSessionId,
          nextSeq: compacted.length,
          tokensBefore,
          tokensAfter,
          messagesBefore: transcript.length,
          messagesAfter: compacted.length,
          fallbackSummary: fallback,
          leftOut,
        };
      } catch (err) {
        // Summaries paid for before the failure (or the stop) are counted all the same.
        throw withReport(err, await calls.report(), ctx.cancellationSignal);
      } finally {
        const final = outcome && ctx.cancellationSignal.aborted ? 'cancelled' : outcome;
        if (final) deps.metrics.compression(final, Date.now() - started);
        endSpan({ outcome: final ?? 'existing', ...tokens });
        stopHeartbeat();
      }
    },
  };

  async function describeExisting(a: CompressContextArgs, id: string): Promise<CompressContextResult> {
    const messages = await loadTranscript(db, id);
    const n = await nextSeq(db, id);
    const tokens = estimateRequestTokens(
      messages,
      requestSchemas(deps.tools, a.tools, a.provider, deps.config.file.tools.schemas),
      a.provider.model,
    );
    return {
      compressed: true,
      sessionId: id,
      nextSeq: n,
      tokensBefore: tokens,
      tokensAfter: tokens,
      messagesBefore: messages.length,
      messagesAfter: messages.length,
      fallbackSummary: false,
    };
  }

  /** The new session, its transcript, and the end of the old one, all or nothing. */
  async function writeCompressedSession(
    deps2: ActivityDeps,
    a: CompressContextArgs,
    source: string,
    cwd: string | null,
    title: string,
    systemPrompt: string,
    messages: ChatMessage[],
    report: AuxiliaryReport,
  ): Promise<void> {
    // The conversation's totals live on its current session's row (finishTurn writes them): the new
    // row starts from the old one's plus this compression's summaries, so that a compression between
    // turns (`/compress`) is in them at once.
    const spent = report.auxAttempts?.usage ?? emptyUsage();
    await withTransaction(deps2.db, async (client) => {
      await client.query(
        `INSERT INTO sessions (id, parent_id, conversation_id, workflow_id, title, source, provider, model, api_mode, base_url, system_prompt, cwd, marker_nonce,
                               api_calls, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, reasoning_tokens, estimated_cost_usd)
         SELECT $1, id, conversation_id, workflow_id, $3, $4, $5, $6, $7, $8, $9, $10, marker_nonce,
                api_calls, input_tokens + $11, output_tokens + $12, cache_read_tokens + $13, cache_write_tokens + $14,
                reasoning_tokens + $15, estimated_cost_usd + $16
           FROM sessions WHERE id = $2`,
        [
          a.newSessionId,
          a.sessionId,
          title,
          source,
          a.provider.provider,
          a.provider.model,
          a.provider.apiMode,
          a.provider.baseUrl,
          systemPrompt,
          cwd,
          spent.input_tokens,
          spent.output_tokens,
          spent.cache_read_tokens,
          spent.cache_write_tokens,
          spent.reasoning_tokens,
          spent.cost_usd,
        ],
      );
      for (const [seq, m] of messages.entries()) {
        await client.query(
          `INSERT INTO messages (session_id, seq, role, content, tool_calls, tool_call_id, tool_name, reasoning, reasoning_details, synthetic)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
          [
            a.newSessionId,
            seq,
            m.role,
            m.content,
            m.tool_calls?.length ? JSON.stringify(m.tool_calls) : null,
            m.tool_call_id ?? null,
            m.name ?? null,
            m.reasoning ?? null,
            m.reasoning_details ? JSON.stringify(m.reasoning_details) : null,
            typeof m.content === 'string' && m.content.startsWith('[CONTEXT SUMMARY'),
          ],
        );
      }
      await client.query('UPDATE messages SET compacted = true WHERE session_id = $1 AND seq < $2', [
        a.sessionId,
        a.beforeSeq,
      ]);
      await client.query(
        "UPDATE sessions SET ended_at = coalesce(ended_at, now()), end_reason = coalesce(end_reason, 'compression') WHERE id = $1",
        [a.sessionId],
      );
    });
  }
}
