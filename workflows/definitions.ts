/**
 * Signal, update and query definitions of the conversation workflow. Their names are public API
 * (README, `temporal workflow signal --name …`); clients import these definitions to stay typed.
 */
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import { UPGRADE_SIGNAL } from '../common/constants.js';
import type {
  AnswerClarifyInput,
  ApproveInput,
  ConversationStateView,
  ForkWorkspaceInput,
  ForkWorkspaceResult,
  RewindInput,
  RewindResult,
  SendMessageInput,
  SetModelInput,
  SetModelResult,
  TurnResult,
} from '../common/contract.js';
import type { McpServerStatus } from '../common/mcp-state.js';

export interface ReloadToolsResult {
  servers: McpServerStatus[];
  tools: string[];
}

export const userMessageSignal = defineSignal<[unknown]>('userMessage');
export const stopSignal = defineSignal<[unknown?]>('stop');
export const steerSignal = defineSignal<[unknown]>('steer');
export const endSignal = defineSignal<[unknown?]>('end');
/**
 * "A new build may be current": a recorded input in which the run decides whether to move
 * (Run.checkDue). `herald deploy drain` sends it to conversations pinned to an older build, which
 * would otherwise get no workflow task on that build until their next message.
 */
export const upgradeSignal = defineSignal<[unknown?]>(UPGRADE_SIGNAL);
export const sendMessageUpdate = defineUpdate<TurnResult, [SendMessageInput]>('sendMessage');
export const stateQuery = defineQuery<ConversationStateView>('state');
/** `approve` works both ways: a signal (fire and forget) or an update (rejects unknown requests). */
export const approveSignal = defineSignal<[unknown]>('approve');
export const approveUpdate = defineUpdate<{ requestId: string; decision: string; scope: string }, [ApproveInput]>(
  'approve',
);
/**
 * A child agent's approval request opened or closed (workflows/child-approvals.ts): sent by the
 * child to its parent, which lists it and answers it (`delegation.askPerson`).
 */
export const childApprovalSignal = defineSignal<[unknown]>('childApproval');
export const answerClarifyUpdate = defineUpdate<{ requestId: string }, [AnswerClarifyInput]>('answerClarify');
export const compressUpdate = defineUpdate<CompressResult, [unknown]>('compress');
/** Switch the conversation's model in place (workflows/set-model.ts). */
export const setModelUpdate = defineUpdate<SetModelResult, [SetModelInput]>('setModel');
/** List the MCP servers' tools again (workflows/mcp.ts; the REPL's `/reload-mcp`). */
export const reloadToolsUpdate = defineUpdate<ReloadToolsResult, []>('reloadTools');
/** Put the workspace and/or transcript back to before a turn (workflows/checkpoints.ts). */
export const rewindUpdate = defineUpdate<RewindResult, [RewindInput]>('rewind');
/** Copy the workspace as a turn left it into a new folder, for a fork (workflows/checkpoints.ts). */
export const forkWorkspaceUpdate = defineUpdate<ForkWorkspaceResult, [ForkWorkspaceInput]>('forkWorkspace');

export interface CompressResult {
  compressed: boolean;
  session_id: string;
  tokens_before: number;
  tokens_after: number;
  message: string;
}
