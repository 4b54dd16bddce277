/**
 * Arguments and results of Herald's activities: the only data that crosses between workflow and
 * activities, and therefore what lands in Temporal history. Kept small on purpose: the transcript
 * lives in Postgres and activities load it themselves (DESIGN.md, "references in history").
 */
import type { ConversationStatus, TurnExitReason, TurnResult } from './contract.js';
import type { Usage } from './messages.js';
import type { ProviderRef, ProviderRequest } from './providers.js';
import type { ToolCallRef } from './tool-batch.js';

export interface PrepareConversationArgs {
  conversationId: string;
  sessionId: string;
  workflowId: string;
  provider: ProviderRequest;
  systemMessage?: string;
  cwd?: string;
  source?: string;
  toolsets?: string[];
  firstMessage?: string;
  history?: Array<{ role: 'user' | 'assistant'; content: string }>;
  /** The conversation's own fallback chain (else the worker's configured one). */
  fallbackProviders?: ProviderRequest[];
}

export interface PrepareConversationResult {
  provider: ProviderRef;
  /** The ordered fallback chain, resolved. */
  fallbacks: ProviderRef[];
  /** The auxiliary model for summaries and titles. */
  auxiliary: ProviderRef;
  cwd: string;
  /** Names of the tools this conversation may use. */
  tools: string[];
  /** Whether Herald's search attributes are registered on the namespace (upserting unknown ones fails the task). */
  searchAttributes: boolean;
  /** Messages already in the session (resumed or seeded): the next sequence number to use. */
  nextSeq: number;
  maxIterations: number;
  busyPolicy: 'interrupt' | 'queue' | 'steer';
}

export interface RecordUserMessageArgs {
  conversationId: string;
  sessionId: string;
  turnId: string;
  turn: number;
  seq: number;
  text: string;
  messageId: string;
}

export interface CallModelArgs {
  conversationId: string;
  sessionId: string;
  turnId: string;
  /** Where the assistant message goes; the transcript before it is the model's input. */
  seq: number;
  /** 1-based model call number within the turn. */
  iteration: number;
  maxIterations: number;
  provider: ProviderRef;
  tools: string[];
  /** Request-only text appended to the last message (budget warnings, steer); never stored. */
  ephemeralNote?: string;
  /** `/steer` text to append (inside the out-of-band marker) to the last tool result before this call. */
  steer?: string;
  /** Ask for a final answer: no tools offered. */
  toolChoiceNone?: boolean;
}

export interface CallModelResult {
  finishReason: string;
  toolCalls: ToolCallRef[];
  /** Full text when the reply ends the turn (no tool calls); a short preview otherwise. */
  text: string;
  textTruncated: boolean;
  reasoning: string | null;
  usage: Usage;
  model: string;
  durationMs: number;
}

export interface RunToolArgs {
  conversationId: string;
  sessionId: string;
  turnId: string;
  /** Seq of the assistant message holding the call's arguments. */
  assistantSeq: number;
  /** Seq where the tool result goes. */
  resultSeq: number;
  call: ToolCallRef;
  cwd: string;
}

export interface RunToolResult {
  isError: boolean;
  preview: string;
  durationMs: number;
  /** The tool had started before (a worker died mid-run) and ran again. */
  reExecuted: boolean;
}

export interface SyntheticMessage {
  seq: number;
  role: 'assistant' | 'tool';
  content: string;
  toolCallId?: string;
  toolName?: string;
}

export interface RecordMessagesArgs {
  sessionId: string;
  turnId: string;
  messages: SyntheticMessage[];
}

export interface FinishTurnArgs {
  conversationId: string;
  sessionId: string;
  turnId: string;
  result: TurnResult;
  /** Session totals are written as absolute values, so a retried write is harmless. */
  sessionApiCalls: number;
}

export interface EndConversationArgs {
  conversationId: string;
  sessionId: string;
  reason: string;
}

export interface StatusEventArgs {
  conversationId: string;
  turnId?: string;
  status: ConversationStatus;
  message: string;
  exitReason?: TurnExitReason;
}
