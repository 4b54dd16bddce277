/** Live state of one running turn: counters, open tool calls, and how `/stop` reaches it. */
import type { StopKind } from '../common/stop-kind.js';
import type { CancellationScope } from '@temporalio/workflow';
import type { ConversationStatus } from '../common/contract.js';
import type { TurnAttempts } from '../common/attempts.js';
import { noAttempts } from '../common/attempts.js';
import type { Usage } from '../common/messages.js';
import { emptyUsage } from '../common/messages.js';
import type { ResponseCounters } from '../common/model-response.js';
import { freshCounters } from '../common/model-response.js';
import type { ToolCallRef } from '../common/tool-batch.js';
import type { LoopGuard } from '../common/loop-guard.js';
import { MAX_PARTIAL_TOOLS } from '../common/delegation.js';

/** The longest text kept for a partial report (a child's summary is cut shorter again). */
const MAX_PARTIAL_TEXT = 50_000;

export type Phase = 'starting' | 'api' | 'tools' | 'finishing';

export interface OpenCall {
  call: ToolCallRef;
  seq: number;
  done: boolean;
}

export class TurnProgress {
  iteration = 0;
  /** Model-call attempts of this turn, failed and stopped ones included. */
  apiCalls = 0;
  usage: Usage = emptyUsage();
  /** What this turn counted of its ledger (workflows/attempts.ts). */
  ledger: TurnAttempts = noAttempts();
  status: ConversationStatus = 'thinking';
  phase: Phase = 'starting';
  currentTools: string[] = [];
  /** Sessions of the child agents this turn is waiting for. */
  children: string[] = [];
  stopRequested = false;
  /** The message id was answered before (found in the store): nothing ran, the old result stands. */
  duplicate = false;
  /** Ids of messages that steered this turn: this turn's result answers them too. */
  steeredIds: string[] = [];
  scope: CancellationScope | undefined;
  /** The turn's checkpoint before its first workspace-changing call: whether it was taken (workflows/checkpoints.ts). */
  checkpoint: Promise<boolean> | undefined;
  /** Role of the newest message this turn put in the transcript. */
  tailRole: 'user' | 'assistant' | 'tool' = 'user';
  openCalls: OpenCall[] = [];
  lastStepWasTools = false;
  /** Position in the fallback chain: 0 on the primary, n after the n-th fallback. */
  chainPos = 0;
  counters: ResponseCounters = freshCounters();
  /** Text of replies cut off by the output limit, joined with the continuation. */
  parts: string[] = [];
  /** Raised output caps so far (truncation). */
  capRaises = 0;
  /** The tool-loop guard of this turn (absent: turned off). */
  loopGuard: LoopGuard | undefined;
  /** The message this turn answers (for the Web UI's current details). */
  messageText: string | undefined;
  /** Who sent that message (the client's identity), when the client said: an approval's requester. */
  requestedBy: string | undefined;
  /** Denied or unanswered approvals in a row in this turn (the approval circuit breaker). */
  denialsInARow = 0;
  /** The breaker tripped: the turn ends after this tool batch. */
  approvalHalt = false;
  /** The newest text the model wrote alongside tool calls: a stopped child's partial report. */
  lastText: string | undefined;
  /** Summaries of the newest tool calls (at most MAX_PARTIAL_TOOLS): the rest of that report. */
  toolsRun: string[] = [];

  /** A tool step began: what a stopped child will report it had done. */
  noteStep(text: string, summaries: readonly string[]): void {
    if (text.trim()) this.lastText = text.slice(0, MAX_PARTIAL_TEXT);
    this.toolsRun.push(...summaries);
    this.toolsRun.splice(0, Math.max(0, this.toolsRun.length - MAX_PARTIAL_TOOLS));
  }

  constructor(
    readonly turnId: string,
    readonly turn: number,
    readonly messageId: string,
  ) {}

  /** What stopped the turn (the first stop says). */
  stopKind: StopKind | undefined;

  /** `/stop`: cancel the turn's scope, or remember the request if the scope does not exist yet. */
  requestStop(kind: StopKind = 'user'): void {
    this.stopKind ??= kind;
    this.stopRequested = true;
    this.scope?.cancel();
  }
}
