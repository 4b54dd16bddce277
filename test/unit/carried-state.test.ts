/**
 * The conversation state is its carried schema's output (workflows/state.ts): what a run keeps is
 * what continue-as-new carries. A field the schema did not name was stripped by the next run's
 * parse (a deny's reason, who approved); a default the fresh state did not set made the first run
 * differ from every later one. These tests hold the two together: a fresh state and a state with
 * every optional field set both cross a continue-as-new (JSON, then the schema) unchanged, and the
 * types the rest of Herald names for the state's parts have exactly the schema's fields.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ApprovalPolicy } from '../../common/approval-policy.js';
import type { ConversationSandbox } from '../../common/activity-types.js';
import type { TurnChanges } from '../../common/checkpoints.js';
import type { CompressionSettings } from '../../common/context-window.js';
import type { ApprovalDecision, ApprovalScope, ConversationInput, TurnResult } from '../../common/contract.js';
import type { DelegationSettings, SubagentInfo } from '../../common/delegation.js';
import type { LeftOut } from '../../common/left-out.js';
import type { LoopGuardSettings, LoopGuardStats } from '../../common/loop-guard.js';
import type { McpSnapshot } from '../../common/mcp-state.js';
import type { Usage } from '../../common/messages.js';
import type { Cooldowns } from '../../common/provider-cooldown.js';
import type { ProviderRef } from '../../common/providers.js';
import type { TodoItem } from '../../common/todos.js';
import { initialState } from '../../workflows/start.js';
import type { ApprovalRequest, ClarifyRequest, ConversationState, QueuedMessage } from '../../workflows/state.js';
import { carriedStateSchema } from '../../workflows/state.js';

/** Every key path of a type (array elements and union members included). */
type Paths<T> = T extends readonly (infer E)[]
  ? Paths<E>
  : T extends object
    ? { [K in keyof T & string]-?: K | `${K}.${Paths<NonNullable<T[K]>> & string}` }[keyof T & string]
    : never;
/** Assignable both ways and the same key paths: an optional field on one side only is a difference. */
type Same<A, B> = [A] extends [B]
  ? [B] extends [A]
    ? [Paths<A>] extends [Paths<B>]
      ? [Paths<B>] extends [Paths<A>]
        ? true
        : false
      : false
    : false
  : false;

type S = ConversationState;
const namedPartsMatch: Record<string, true> = {
  provider: true satisfies Same<S['provider'], ProviderRef>,
  primary: true satisfies Same<S['primary'], ProviderRef>,
  auxiliary: true satisfies Same<S['auxiliary'], ProviderRef>,
  fallbacks: true satisfies Same<S['fallbacks'][number], ProviderRef>,
  sessionUsage: true satisfies Same<S['sessionUsage'], Usage>,
  compression: true satisfies Same<S['compression'], CompressionSettings>,
  delegation: true satisfies Same<S['delegation'], DelegationSettings>,
  subagent: true satisfies Same<NonNullable<S['subagent']>, SubagentInfo>,
  sandbox: true satisfies Same<NonNullable<S['sandbox']>, ConversationSandbox>,
  mcp: true satisfies Same<NonNullable<S['mcp']>, McpSnapshot>,
  promptLeftOut: true satisfies Same<S['promptLeftOut'][number], LeftOut>,
  todos: true satisfies Same<S['todos'][number], TodoItem>,
  lastChanges: true satisfies Same<NonNullable<S['lastChanges']>, TurnChanges>,
  loopGuard: true satisfies Same<S['loopGuard'], LoopGuardSettings>,
  loopGuardStats: true satisfies Same<S['loopGuardStats'], LoopGuardStats>,
  approvalPolicy: true satisfies Same<NonNullable<S['approvalPolicy']>, ApprovalPolicy>,
  cooldowns: true satisfies Same<NonNullable<S['cooldowns']>, Cooldowns>,
  lastResult: true satisfies Same<NonNullable<S['lastResult']>, TurnResult>,
  decision: true satisfies Same<NonNullable<ApprovalRequest['decision']>, ApprovalDecision>,
  scope: true satisfies Same<NonNullable<ApprovalRequest['scope']>, ApprovalScope>,
};

/** What the next run sees: the payload (JSON) parsed by the carried schema. */
function acrossContinueAsNew(state: ConversationState): unknown {
  return carriedStateSchema.parse(JSON.parse(JSON.stringify(state)));
}

function asPayload(state: ConversationState): unknown {
  return JSON.parse(JSON.stringify(state));
}

const provider: Required<ProviderRef> = {
  provider: 'openrouter',
  model: 'vendor/model-a',
  apiMode: 'chat_completions',
  baseUrl: 'https://openrouter.example/api/v1',
  apiKeyEnv: 'OPENROUTER_API_KEY',
  credentialPool: ['OPENROUTER_API_KEY', 'OPENROUTER_API_KEY_2'],
  contextLength: 128_000,
  maxOutputTokens: 8_000,
  fromWorker: true,
};

const queued: Required<QueuedMessage> = {
  id: 'm-2',
  text: 'and the tests too',
  awaited: true,
  steerParts: ['and the tests', 'too'],
  by: 'alice@example.com',
};

const approval: Required<ApprovalRequest> = {
  requestId: 't-1:call-1',
  tool: 'terminal',
  command: 'rm -rf build',
  reason: 'deletes files',
  rules: ['recursive-delete'],
  requestedAt: 1_760_000_000_000,
  timeoutSeconds: 300,
  decision: 'deny',
  scope: 'command',
  denyReason: 'not the build directory, the cache',
  requester: 'alice@example.com',
  approver: 'bob@example.com',
  via: 'cli',
};

const clarify: Required<ClarifyRequest> = {
  requestId: 't-1:call-2',
  question: 'Which database?',
  choices: ['postgres', 'sqlite'],
  askedAt: 1_760_000_000_000,
  timeoutSeconds: 600,
  answer: 'postgres',
};

const result: Required<TurnResult> = {
  final_response: 'Done.',
  last_reasoning: null,
  messages_count: 4,
  api_calls: 1,
  completed: false,
  interrupted: true,
  failed: false,
  partial: true,
  turn_exit_reason: 'interrupted_by_user',
  model: 'vendor/model-a',
  provider: 'openrouter',
  usage: {
    turn: { ...usage(10) },
    session: { ...usage(20) },
  },
  estimated_cost_usd: 0.01,
  session_id: 'conv-1',
  turn: 1,
  message_id: 'm-1',
  error: 'stopped',
  stop_kind: 'user',
};

function usage(n: number): Usage {
  return {
    input_tokens: n,
    output_tokens: n,
    cache_read_tokens: 0,
    cache_write_tokens: 0,
    reasoning_tokens: 0,
    total_tokens: 2 * n,
    cost_usd: 0.001,
  };
}

/** Every field of the state set, optional ones included (Required: a new field must be added here). */
const everything: Required<ConversationState> = {
  conversationId: 'conv-1',
  sessionId: 'conv-1-c1',
  nextSeq: 12,
  turn: 3,
  provider,
  primary: provider,
  fallbacks: [{ ...provider, provider: 'anthropic', apiMode: 'anthropic_messages', model: 'model-b' }],
  auxiliary: provider,
  cwd: '/srv/work/project',
  tools: ['terminal', 'read_file', 'todo'],
  searchAttributes: true,
  maxIterations: 90,
  busyPolicy: 'queue',
  sessionUsage: usage(20),
  sessionApiCalls: 2,
  queue: [queued],
  pendingSteer: ['stop after the tests'],
  recentResults: [{ id: 'm-1', result }],
  lastResult: result,
  lastError: 'rate limited',
  titleSet: true,
  title: 'Fix the build',
  searchAttributeNames: ['HeraldStatus', 'HeraldTitle'],
  credentialIndex: { 'openrouter|https://openrouter.example/api/v1': 1 },
  cooldowns: { 'openrouter|vendor/model-a|https://openrouter.example/api/v1': 1_760_000_060_000 },
  cooldownMs: 60_000,
  budget: { maxCostUsd: 2, maxTokens: 1_000_000 },
  compression: {
    enabled: true,
    threshold: 0.5,
    targetRatio: 0.2,
    protectFirst: 3,
    protectLast: 20,
    hygieneThreshold: 0.85,
  },
  compressions: 1,
  ineffectiveCompressions: 0,
  lastPromptTokens: 4_000,
  approvalMode: 'manual',
  approvalTimeoutSeconds: 300,
  clarifyTimeoutSeconds: 600,
  sessionApprovedRules: ['network-fetch'],
  sessionApprovedCommands: ['npm test'],
  pendingApprovals: [approval],
  approvalPolicy: { maxDenialsInARow: 3, separateApprover: true },
  clarify,
  todos: [{ id: '1', content: 'run the tests', status: 'in_progress' }],
  toolTaskQueue: 'herald-tools',
  delegation: {
    mode: 'background',
    maxIterations: 30,
    maxConcurrentChildren: 2,
    maxDepth: 1,
    autoApprove: false,
    askPerson: false,
    maxSummaryChars: 4_000,
    childTimeoutSeconds: 900,
    model: { provider: 'openrouter', model: 'vendor/model-small' },
  },
  subagent: { parentSessionId: 'parent-1', depth: 1, autoApprove: true },
  sandbox: { network: { allow: ['registry.npmjs.org'] }, active: true, warning: 'no seccomp filter' },
  mcp: {
    tools: [{ name: 'mcp_files_read', hash: '0123456789abcdef' }],
    servers: [
      {
        name: 'files',
        status: 'ready',
        tools: 1,
        reason: 'listed',
        epoch: 'c1:3',
        leftOut: [{ what: 'MCP tool files/write', rule: 'an instruction to the model' }],
      },
    ],
    toolsets: ['files'],
    stale: true,
  },
  promptLeftOut: [{ what: 'AGENTS.md', rule: 'an instruction to ignore earlier instructions' }],
  heldReports: [{ ...queued, id: 'report-1', awaited: false }],
  ignoredSignals: { count: 2, lastReason: 'steer signal: too large' },
  loopGuard: { enabled: true, maxRepeats: 4, noProgressCalls: 8 },
  loopGuardStats: { nudges: 1, refusals: 1, halts: 0 },
  lastChanges: { turn: 3, files: 2, added: 10, removed: 4 },
};

describe('carried state: the state type is the carried schema', () => {
  it('names the same fields as the types Herald uses for the state’s parts', () => {
    // The check is the type check above; this keeps it in the test's report.
    assert.ok(Object.values(namedPartsMatch).every(Boolean));
  });

  it('carries a state with every optional field set across continue-as-new unchanged', () => {
    assert.deepEqual(acrossContinueAsNew(everything), asPayload(everything));
  });

  it('gives a fresh state every field a carried one gets by default', () => {
    const inputs: ConversationInput[] = [
      {},
      { model: 'vendor/model-a', budget: { maxTokens: 10_000 }, approvals: { mode: 'smart' } },
      { toolTaskQueue: 'herald-tools', subagent: { parentSessionId: 'parent-1', depth: 1, autoApprove: true } },
    ];
    for (const input of inputs) {
      const fresh = initialState('conv-1', input);
      assert.deepEqual(acrossContinueAsNew(fresh), asPayload(fresh));
    }
  });
});
