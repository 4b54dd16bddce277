/**
 * The first part of a model call: everything the request needs, read before any byte is sent — the
 * endpoint as this worker's configuration gives it, the transcript with its request-only notes, the
 * plugins' extra context, the tool schemas (built-in and MCP) and the output cap.
 */
import type { CallModelArgs } from '../../common/activity-types.js';
import type { ChatMessage } from '../../common/messages.js';
import { steerNote } from '../../shared/markers.js';
import type { ProviderRef } from '../../common/providers.js';
import { currentEndpoint, defaultOutputCap, isLocalEndpoint } from '../../common/providers.js';
import { repairMessageOrder } from '../../shared/role-order.js';
import { temperatureFor } from '../../shared/temperature.js';
import type { ActivityDeps } from '../deps.js';
import { mcpSchemas, resolveMcpTools } from '../../mcp/tools.js';
import type { McpToolRow } from '../../store/mcp-tools.js';
import { appendToContent, loadTranscript } from '../../store/messages.js';
import { sessionPrompt } from '../../store/sessions.js';
import { requestSchemas } from '../tools/schema-economy.js';
import { untilDbAnswers } from '../../store/outage.js';
import { appendNote, withToolDigest } from './paused-digest.js';
import { storageFailure } from './storage-failure.js';
import type { ModelRequest } from '../../model-adapters/types.js';

export interface PreparedCall {
  ref: ProviderRef;
  request: ModelRequest;
  /** The conversation's MCP tools: names and hashes from workflow state, schemas from the store. */
  mcpTools: Map<string, McpToolRow>;
  /** Who the plugins' hooks are told about. */
  scope: { conversationId: string; sessionId: string; turnId: string; model: string; provider: string };
}

/**
 * How long the reads wait out a database outage inside the attempt (heartbeating) before the
 * attempt fails: an outage costs the conversation a workflow task every few minutes (three
 * attempts, then the workflow's wait: workflows/model-slot.ts), not every few seconds.
 */
export const PREPARE_DB_WAIT_MS = 40_000;

/** Read what the request needs; a database failure is a storage failure (retryable when transient). */
export async function prepareCall(deps: ActivityDeps, a: CallModelArgs, signal?: AbortSignal): Promise<PreparedCall> {
  const { db, config } = deps;
  // The endpoint as this worker's configuration gives it now (unless the caller pinned one).
  const ref = currentEndpoint(a.provider, config.providerDefaults);
  let messages: ChatMessage[];
  let mcpTools: Map<string, McpToolRow>;
  try {
    const wait = { maxMs: PREPARE_DB_WAIT_MS, ...(signal ? { signal } : {}) };
    messages = await untilDbAnswers(() => buildMessages(deps, a), wait);
    mcpTools = await untilDbAnswers(() => resolveMcpTools(db, a.mcp?.tools ?? []), wait);
  } catch (err) {
    throw storageFailure(err, 'loading the transcript');
  }
  const scope = {
    conversationId: a.conversationId,
    sessionId: a.sessionId,
    turnId: a.turnId,
    model: ref.model,
    provider: ref.provider,
  };
  const extra = await deps.hooks.preLlmCall({ ...scope, messages });
  return {
    ref,
    mcpTools,
    scope,
    request: {
      model: ref.model,
      messages: withHookContext(messages, extra),
      // MCP schemas are passed through as the servers wrote them (adapted at discovery).
      tools: [...requestSchemas(deps.tools, a.tools, ref, config.file.tools.schemas), ...mcpSchemas(mcpTools)],
      maxOutputTokens:
        a.maxOutputTokens ?? ref.maxOutputTokens ?? config.file.model.maxOutputTokens ?? defaultOutputCap(ref),
      temperature: temperatureFor(config.file, ref),
      cacheTtl: config.file.model.promptCacheTtl,
      toolChoiceNone: a.toolChoiceNone,
      cutRunaways: isLocalEndpoint(ref),
    },
  };
}

/** Hook context rides on the current request only: appended to the newest user message. */
export function withHookContext(messages: ChatMessage[], extra: readonly string[]): ChatMessage[] {
  if (!extra.length) return messages;
  const lastUser = messages.findLastIndex((m) => m.role === 'user');
  const target = messages[lastUser];
  if (!target) return messages;
  const out = [...messages];
  out[lastUser] = { ...target, content: `${target.content ?? ''}\n\n${extra.join('\n\n')}` };
  return out;
}

/** System prompt + repaired transcript + request-only notes (steer is stored; budget notes are not). */
async function buildMessages(deps: ActivityDeps, a: CallModelArgs): Promise<ChatMessage[]> {
  const { db } = deps;
  // Both fixed for the session's life: read once per worker (store/sessions.ts), not per call.
  const { systemPrompt, nonce } = await sessionPrompt(db, a.sessionId);
  let transcript = await loadTranscript(db, a.sessionId, a.seq);
  const lastTool = [...transcript].reverse().find((m) => m.role === 'tool');
  if (a.steer && lastTool && transcript[transcript.length - 1]?.role === 'tool') {
    await appendToContent(db, a.sessionId, lastTool.seq, steerNote(nonce, a.steer));
    transcript = await loadTranscript(db, a.sessionId, a.seq);
  }
  const messages = repairMessageOrder([
    { role: 'system', content: systemPrompt },
    ...transcript.map((m) => (a.stripReasoning ? withoutReasoningDetails(stripSeq(m)) : stripSeq(m))),
  ]);
  // A tool-less request sees this step's tool calls as one digest (activities/model/paused-digest.ts).
  if (a.toolChoiceNone) return withToolDigest(messages, nonce, a.ephemeralNote);
  return appendNote(messages, nonce, a.ephemeralNote);
}

function withoutReasoningDetails(m: ChatMessage): ChatMessage {
  const { reasoning_details: _details, ...rest } = m;
  return rest;
}

function stripSeq(m: ChatMessage & { seq?: number }): ChatMessage {
  const { seq: _seq, ...rest } = m;
  return rest;
}
