/**
 * Herald's typed client library. `HeraldClient` starts and steers conversations; `HeraldAgent`
 * mirrors the seeds' two entry points: `chat(text)` → the final response string, and
 * `runConversation({ userMessage, … })` → the full turn result (docs/cli.md).
 */
import type { HeraldSchedules } from './schedules.js';
import type { DrainOptions, DrainReport } from './deploy-drain.js';
import type { ChildAgent } from './children.js';
import { clientIdentity } from './identity.js';
import { randomBytes } from 'node:crypto';
import type { Client, WorkflowHandle } from '@temporalio/client';
import { WithStartWorkflowOperation, WorkflowUpdateFailedError } from '@temporalio/client';
import { CONVERSATION_WORKFLOW, workflowIdFor } from '../common/constants.js';
import { MOVING_RUNS } from '../common/contract.js';
import type {
  ApprovalDecision,
  ApprovalScope,
  ConversationInput,
  ConversationStateView,
  SetModelInput,
  SetModelResult,
  TurnResult,
} from '../common/contract.js';
import type { conversation } from '../workflows/conversation.js';
import type { CompressResult } from '../workflows/definitions.js';
import type { ReloadToolsResult } from '../workflows/definitions.js';
import { forkWorkspaceUpdate, rewindUpdate } from '../workflows/definitions.js';
import type { SeedMessage } from './fork.js';
import { firstTurns } from './fork.js';
import type { RewindResult } from '../common/contract.js';
import { createDb } from '../store/db.js';
import type { TurnDiff } from './turn-diff.js';
import { readTurnDiff } from './turn-diff.js';
import {
  answerClarifyUpdate,
  approveUpdate,
  compressUpdate,
  endSignal,
  sendMessageUpdate,
  setModelUpdate,
  reloadToolsUpdate,
  stateQuery,
  steerSignal,
  stopSignal,
  userMessageSignal,
} from '../workflows/definitions.js';
import type { ClientSettings } from './connection.js';
import { clientSettings, connectTemporal } from './connection.js';
import { loadConfig } from '../runtime/config.js';
import { installRedactor, workerSecrets } from '../runtime/secrets.js';
import type { EventWatch, StoredEvent } from './events.js';
import { watchEvents } from './events.js';
import type { StartPhase } from './start-phase.js';
import { waitForStartPhase } from './start-phase.js';
import { explainUpdateError } from './workflow-failure.js';
import { checkMessage, checkStart, outgoing, outgoingStart, summaryOf } from './outgoing.js';
import { StopNotifier } from './stop-notice.js';
import { isTransientSendError, isUpdateDeadlineError } from './transient.js';
import { NoWorkerError, requireWorker, whileWorkerPolls, workflowTaskQueue } from './worker-presence.js';
export { NoWorkerError } from './worker-presence.js';

/**
 * How long a send waits for a worker's poll before it says nobody polls: a starting worker's
 * first poll, or the workers of a Temporal server that just restarted polling again.
 */
const NO_WORKER_GRACE_MS = 10_000;

/** How long `send` keeps resending through an outage of Temporal (a restart takes seconds). */
export const SEND_OUTAGE_MS = 120_000;
/** How long `send` keeps resending while each attempt runs out its deadline (a very busy server). */
export const SEND_SLOW_MS = 30 * 60_000;

export { ConversationFailedError } from './workflow-failure.js';
export type { StartPhase } from './start-phase.js';
export type { DrainOptions, DrainProgress, DrainReport } from './deploy-drain.js';

/** Session ids sort by time and are unique: `20261130-101500-a1b2c3`. */
export function newSessionId(now = new Date()): string {
  const stamp = now.toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
  return `${stamp}-${randomBytes(3).toString('hex')}`;
}

export type StartOptions = Omit<ConversationInput, 'carried'>;

export class HeraldClient {
  private notifier: StopNotifier | undefined;

  private constructor(
    readonly temporal: Client,
    readonly settings: ClientSettings,
  ) {}

  static async connect(settings: ClientSettings): Promise<HeraldClient> {
    return new HeraldClient(await connectTemporal(settings), settings);
  }

  /** Connect the way the `herald` CLI does: environment variables, else the running `herald dev`. */
  static async fromEnvironment(env: NodeJS.ProcessEnv = process.env): Promise<HeraldClient> {
    const config = loadConfig(env);
    installRedactor(workerSecrets(env, config.file));
    return await HeraldClient.connect(clientSettings(config));
  }

  /** A handle on a conversation, started or not. */
  conversation(sessionId: string): Conversation {
    return new Conversation(this, sessionId);
  }

  /**
   * Start a conversation workflow (its `message`, if any, runs as the first turn). The input is
   * checked here first, with the workflow's own schema; what only the worker can check (the
   * workspace, its endpoints) `conversation.whenStarted()` reports.
   */
  async start(options: StartOptions = {}): Promise<Conversation> {
    const input = outgoingStart(options);
    const sessionId = input.sessionId ?? newSessionId();
    checkStart({ ...input, sessionId });
    await this.temporal.workflow.start(CONVERSATION_WORKFLOW, {
      taskQueue: this.settings.taskQueue,
      workflowId: workflowIdFor(sessionId),
      args: [{ ...input, sessionId }],
      staticSummary: input.message ? summaryOf(input.message) : `Herald session ${sessionId}`,
    });
    return this.conversation(sessionId);
  }

  /** Scheduled conversations on Temporal Schedules (client/schedules.ts). */
  async schedules(): Promise<HeraldSchedules> {
    const { HeraldSchedules } = await import('./schedules.js');
    return new HeraldSchedules(this);
  }

  /**
   * After a deploy: wake the conversations pinned to older builds of the Worker Deployment so each
   * moves to the current build (client/deploy-drain.ts; `herald deploy drain`).
   */
  async drainOlderBuilds(options: DrainOptions = {}): Promise<DrainReport> {
    const { drainOlderBuilds } = await import('./deploy-drain.js');
    return await drainOlderBuilds(this.temporal, options);
  }

  /** The stop side channel's sender (client/stop-notice.ts); none without a database URL. */
  stopNotifier(): StopNotifier | undefined {
    if (!this.settings.databaseUrl) return undefined;
    return (this.notifier ??= new StopNotifier(this.settings.databaseUrl));
  }

  async close(): Promise<void> {
    await this.notifier?.close();
    await this.temporal.connection.close();
  }
}

/** An update the workflow refused (validator): say why in the error's own message. */
async function rejections<T>(p: Promise<T>): Promise<T> {
  try {
    return await p;
  } catch (err) {
    if (err instanceof WorkflowUpdateFailedError && err.cause instanceof Error)
      throw new Error(`rejected: ${err.cause.message}`, { cause: err });
    throw err;
  }
}

export class Conversation {
  readonly workflowId: string;

  constructor(
    private readonly herald: HeraldClient,
    readonly sessionId: string,
  ) {
    this.workflowId = workflowIdFor(sessionId);
  }

  get handle(): WorkflowHandle<typeof conversation> {
    return this.herald.temporal.workflow.getHandle<typeof conversation>(this.workflowId);
  }

  /**
   * Send a message and wait for its turn's result. `start` creates the conversation if needed.
   * While the conversation moves to a new run (continue-as-new) it refuses new messages — for a
   * moment, or until a turn that was running ends (a new build became current mid-turn) — and the
   * same message (same id) is sent again, for up to `SEND_SLOW_MS`, until the next run takes it. So it is when
   * Temporal cannot be reached or lost the update in a restart (client/transient.ts), for up to
   * `SEND_OUTAGE_MS` in a row: a repeated id is answered from the turn it ran, never run twice.
   * An update that only ran out its deadline (a busy server, hundreds of conversations) goes again
   * at once with the same id, for up to `SEND_SLOW_MS`.
   *
   * When no worker polls the conversation's task queue, it throws NoWorkerError within seconds
   * (and while it waits, once no worker has polled for WORKER_GONE_AFTER_MS): `waitForWorker`
   * waits instead.
   */
  async send(
    text: string,
    options: { id?: string; start?: StartOptions; waitForWorker?: boolean } = {},
  ): Promise<TurnResult> {
    const id = options.id ?? randomBytes(8).toString('hex');
    const temporal = this.herald.temporal;
    // Nobody polls the conversation's queue: say so now rather than wait in silence (unless asked to).
    const queue = options.waitForWorker
      ? undefined
      : ((await workflowTaskQueue(temporal, this.workflowId).catch(() => undefined)) ??
        (options.start ? this.herald.settings.taskQueue : undefined));
    if (queue) await requireWorker(temporal, queue, NO_WORKER_GRACE_MS);
    let outageSince: number | undefined;
    let slowSince: number | undefined;
    let resends = 0;
    let moves = 0;
    let movingSince: number | undefined;
    for (;;) {
      try {
        const once = this.sendOnce(text, id, options.start);
        return await (queue ? whileWorkerPolls(temporal, queue, once) : once);
      } catch (err) {
        if (err instanceof NoWorkerError) throw err;
        if (isUpdateDeadlineError(err)) {
          // Busy, not down: the same id again at once, for as long as a turn may take.
          slowSince ??= Date.now();
          if (Date.now() - slowSince >= SEND_SLOW_MS) throw err;
          outageSince = undefined;
          await new Promise((r) => setTimeout(r, 50));
          continue;
        }
        slowSince = undefined;
        if (isTransientSendError(err)) {
          outageSince ??= Date.now();
          if (Date.now() - outageSince >= SEND_OUTAGE_MS) throw err;
          await new Promise((r) => setTimeout(r, Math.min(5000, 250 * ++resends)));
          continue;
        }
        outageSince = undefined;
        resends = 0;
        const moving = err instanceof WorkflowUpdateFailedError && String(err.cause?.message).includes(MOVING_RUNS);
        // A move waits for the running turn to end: as long as a turn may take, like a slow send.
        if (moving) movingSince ??= Date.now();
        // An update that died with its workflow: the workflow's own failure says why.
        if (!moving || Date.now() - movingSince! >= SEND_SLOW_MS) throw await explainUpdateError(this.handle, err);
        moves++;
        await new Promise((r) => setTimeout(r, Math.min(1000, 100 * moves)));
      }
    }
  }

  private async sendOnce(typed: string, id: string, startOptions: StartOptions | undefined): Promise<TurnResult> {
    const text = outgoing(typed);
    const start = startOptions && outgoingStart(startOptions);
    checkMessage(text);
    if (start) checkStart({ ...start, sessionId: this.sessionId });
    const by = clientIdentity();
    if (!start) return await this.handle.executeUpdate(sendMessageUpdate, { args: [{ text, id, by }], updateId: id });
    const startOp = new WithStartWorkflowOperation<typeof conversation>(CONVERSATION_WORKFLOW, {
      taskQueue: this.herald.settings.taskQueue,
      workflowId: this.workflowId,
      args: [{ ...start, sessionId: this.sessionId }],
      workflowIdConflictPolicy: 'USE_EXISTING',
      staticSummary: summaryOf(text),
    });
    return await this.herald.temporal.workflow.executeUpdateWithStart(sendMessageUpdate, {
      args: [{ text, id, by }],
      updateId: id,
      startWorkflowOperation: startOp,
    });
  }

  /**
   * Wait (at most `timeoutMs`) until a just-started conversation got through its start on a
   * worker. Throws a ConversationFailedError naming the cause when it failed there (e.g. a `cwd`
   * that does not exist on the worker); `pending` when no worker decided in time.
   */
  async whenStarted(timeoutMs = 10_000): Promise<StartPhase> {
    return await waitForStartPhase(this.herald.temporal, this.workflowId, undefined, timeoutMs);
  }

  /** Fire-and-forget message (signal `userMessage`); the busy policy decides when it runs. */
  async post(typed: string, id?: string): Promise<void> {
    const text = outgoing(typed);
    checkMessage(text);
    await this.handle.signal(userMessageSignal, id ? { text, id } : text);
  }

  /**
   * Interrupt the running turn (signal `stop`). With a database URL, a stop notice follows the
   * signal so the worker aborts the model request at once (activities/events/stop-notices.ts);
   * `turnId`, when the caller knows the running turn, keeps a late notice off a newer turn.
   */
  async stop(
    reason?: string,
    options: { turnId?: string | undefined; kind?: 'user' | 'client_gone' | 'deadline' } = {},
  ): Promise<void> {
    const notifier = this.herald.stopNotifier();
    // Connect while the signal travels; the notice goes only once the signal is accepted.
    notifier?.ready().catch(() => {});
    const payload = { ...(reason ? { reason } : {}), ...(options.kind ? { kind: options.kind } : {}) };
    await this.handle.signal(stopSignal, Object.keys(payload).length ? payload : undefined);
    await notifier?.send({ conversationId: this.sessionId, turnId: options.turnId });
  }

  async steer(text: string): Promise<void> {
    checkMessage(text);
    await this.handle.signal(steerSignal, outgoing(text));
  }

  async end(reason?: string): Promise<void> {
    await this.handle.signal(endSignal, reason ? { reason } : undefined);
  }

  /**
   * Decide a pending approval (update `approve`: an unknown request id is rejected). `session` and
   * `always` cover this command; `scope: 'rule'` widens them to every command of the same rules.
   * `reason` (with `deny`) is passed to the model in the tool's result (at most MAX_DENY_REASON_CHARS).
   * `as.by` names the approver (default: this client's identity, client/identity.ts) and `as.via`
   * where from (default `api`): both go to the approvals audit.
   */
  async approve(
    requestId: string,
    decision: ApprovalDecision,
    scope?: ApprovalScope,
    reason?: string,
    as: { by?: string | undefined; via?: string | undefined } = {},
  ): Promise<void> {
    const by = as.by ?? clientIdentity();
    const via = as.via ?? 'api';
    const args = { requestId, decision, ...(scope ? { scope } : {}), ...(reason ? { reason } : {}), by, via };
    // A request of one of its child agents is answered here too: the workflow passes it on.
    await rejections(this.handle.executeUpdate(approveUpdate, { args: [args] }));
  }

  /** Answer the pending `clarify` question. */
  async answer(text: string, requestId?: string): Promise<{ requestId: string }> {
    return await rejections(
      this.handle.executeUpdate(answerClarifyUpdate, {
        args: [{ answer: outgoing(text), ...(requestId ? { requestId } : {}) }],
      }),
    );
  }

  /**
   * Switch the conversation's model in place (same session): at once when idle, else from the
   * next turn (`applies` says which). Rejected, with the worker's reason, when it cannot serve it.
   */
  async setModel(input: SetModelInput): Promise<SetModelResult> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await rejections(this.handle.executeUpdate(setModelUpdate, { args: [input] }));
      } catch (err) {
        // Refused while the conversation moves to a new run: the next run takes it.
        if (!String((err as Error).message).includes(MOVING_RUNS) || attempt >= 60) throw err;
        await new Promise((r) => setTimeout(r, Math.min(1000, 100 * attempt)));
      }
    }
  }

  /** Compress the context now (`/compress [focus]`); runs between turns. */
  async compress(focus?: string): Promise<CompressResult> {
    return await rejections(this.handle.executeUpdate(compressUpdate, { args: [focus ? { focus } : {}] }));
  }

  /** List the MCP servers' tools again (`/reload-mcp`): the servers' statuses and the MCP tools now offered. */
  async reloadTools(): Promise<ReloadToolsResult> {
    return await rejections(this.handle.executeUpdate(reloadToolsUpdate));
  }

  async state(): Promise<ConversationStateView> {
    return await this.handle.query(stateQuery);
  }

  /** The child agents this conversation delegated to, oldest first, with their status (client/children.ts). */
  async children(): Promise<ChildAgent[]> {
    return await (await import('./children.js')).listChildren(this.herald, this);
  }

  /**
   * Stop one running child agent (`child`: its session id, or the part after this one's, `d1-2-0`).
   * It ends its turn; its parent gets what it had so far, marked as stopped by a person, and goes on.
   */
  async stopChild(child: string, reason?: string): Promise<string> {
    const { runningChild, STOP_CHILD_REASON } = await import('./children.js');
    const c = await runningChild(this.herald, this, child);
    await c.stop(reason ?? STOP_CHILD_REASON, { kind: 'user' });
    return c.sessionId;
  }

  /** Steer one running child agent: `text` reaches it at its next model call after a tool step. */
  async steerChild(child: string, text: string): Promise<string> {
    const c = await (await import('./children.js')).runningChild(this.herald, this, child);
    await c.steer(text);
    return c.sessionId;
  }

  /**
   * What turn `turn` (default: the latest with a checkpoint) changed in the workspace, whichever
   * tool changed it (docs/checkpoints.md); undefined when no turn changed it. Needs the database URL.
   */
  async diff(turn?: number): Promise<TurnDiff | undefined> {
    const url = this.herald.settings.databaseUrl;
    if (!url) throw new Error("a turn's diff needs the database: set DATABASE_URL (or run `herald dev`)");
    const db = createDb(url, 1);
    try {
      return await readTurnDiff(db, this.sessionId, turn);
    } finally {
      await db.end();
    }
  }

  /**
   * A new conversation that starts from turn `atTurn` of this one (docs/checkpoints.md): its seed
   * history is the first `atTurn` turns' text, its workspace a copy, in the new folder `cwd`
   * (inside a workspace root), of this workspace as that turn left it. This one goes on unchanged.
   */
  async fork(o: { atTurn: number; cwd: string; sessionId?: string }): Promise<Conversation> {
    const url = this.herald.settings.databaseUrl;
    if (!url) throw new Error('a fork needs the database: set DATABASE_URL (or run `herald dev`)');
    const db = createDb(url, 1);
    let history: SeedMessage[];
    try {
      history = await firstTurns(db, this.sessionId.replace(/\.\d+$/, ''), o.atTurn);
    } finally {
      await db.end();
    }
    const copy = await rejections(
      this.handle.executeUpdate(forkWorkspaceUpdate, { args: [{ atTurn: o.atTurn, cwd: o.cwd }] }),
    );
    return await this.herald.start({ cwd: copy.cwd, history, ...(o.sessionId ? { sessionId: o.sessionId } : {}) });
  }

  /**
   * Put the workspace (`files`, default true) and/or the transcript (`conversation`) back to before
   * turn `toTurn` (docs/checkpoints.md). A refusal (changes made outside Herald, a turn running) is
   * in the result's `refused`, or thrown when the conversation refuses the update itself.
   */
  async rewind(input: {
    toTurn: number;
    files?: boolean;
    conversation?: boolean;
    force?: boolean;
  }): Promise<RewindResult> {
    return await rejections(
      this.handle.executeUpdate(rewindUpdate, {
        args: [{ files: true, conversation: false, ...input }],
      }),
    );
  }

  /** Follow this conversation's events from `fromSeq` (needs the database URL). */
  async watch(onEvent: (e: StoredEvent) => void, fromSeq = 0): Promise<EventWatch> {
    const url = this.herald.settings.databaseUrl;
    if (!url) throw new Error('watching events needs the database: set DATABASE_URL (or run `herald dev`)');
    return await watchEvents(url, this.sessionId, fromSeq, onEvent);
  }
}

export interface AgentOptions extends StartOptions {
  client: HeraldClient;
}

export interface RunConversationOptions {
  userMessage: string;
  systemMessage?: string;
  /** Earlier messages to seed a new session's transcript with. */
  conversationHistory?: Array<{ role: 'user' | 'assistant'; content: string }>;
  /** Scopes the turn; defaults to a fresh id. Reusing one makes the call idempotent. */
  taskId?: string;
}

/** The seeds' agent object: one conversation, two ways to talk to it. */
export class HeraldAgent {
  readonly conversation: Conversation;
  private readonly start: StartOptions;

  constructor(options: AgentOptions) {
    const { client, ...start } = options;
    this.start = { ...start, sessionId: start.sessionId ?? newSessionId() };
    this.conversation = client.conversation(this.start.sessionId!);
  }

  /** Send `text`; resolves to the final response (throws when the turn failed). */
  async chat(text: string): Promise<string> {
    const r = await this.conversation.send(text, { start: this.start });
    if (r.failed) throw new Error(r.error ?? 'the turn failed');
    return r.final_response ?? '';
  }

  /** Send a user message; resolves to the full turn result (docs/temporal-cli.md). */
  async runConversation(o: RunConversationOptions): Promise<TurnResult> {
    const start: StartOptions = { ...this.start };
    if (o.systemMessage !== undefined) start.systemMessage = o.systemMessage;
    if (o.conversationHistory?.length) start.history = o.conversationHistory;
    return await this.conversation.send(o.userMessage, { id: o.taskId ?? randomBytes(8).toString('hex'), start });
  }
}
