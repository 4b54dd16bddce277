/**
 * One run of a conversation workflow, as its handlers and its loop share it: the durable state
 * plus what lives only in this run (the running turn, results handed to waiting callers, manual
 * compressions, background children). Acceptance rules live here too: what a message must satisfy
 * to enter the queue, so that everything the run carries stays within its bounds (limits.ts).
 */
import type { CancellationScope } from '@temporalio/workflow';
import { log, setCurrentDetails, workflowInfo } from '@temporalio/workflow';
import type { TurnResult } from '../common/contract.js';
import type { CompressResult } from './definitions.js';
import type { ChildApproval } from './child-approvals.js';
import type { ChildBatch } from './delegation.js';
import { stopChildren } from './delegation.js';
import { openChildApprovals } from './child-approvals.js';
import { SearchAttributePublisher, describe, heraldStatus } from './details.js';
import {
  CAN_HISTORY_BYTES,
  CAN_HISTORY_EVENTS,
  MAX_HELD_REPORT_BYTES,
  MAX_PENDING_STEER,
  MAX_PENDING_STEER_BYTES,
  MAX_QUEUED_BYTES,
  MAX_QUEUED_MESSAGES,
  STOP_HISTORY_BYTES,
  STOP_HISTORY_EVENTS,
  clampBytes,
} from './limits.js';
import { jsonBytes, utf8Bytes } from '../common/text.js';
import type { ConversationState, QueuedMessage } from './state.js';
import { findResult } from './state.js';
import type { TurnProgress } from './turn.js';

export interface ManualCompression {
  id: string;
  focus: string | undefined;
}

export class Run {
  current: TurnProgress | undefined;
  compressing = false;
  /** A `rewind` update is changing the workspace or transcript: turns wait (workflows/checkpoints.ts). */
  rewinding = false;
  /** The manual compression in progress, so `/stop` can cancel it. */
  compressScope: CancellationScope | undefined;
  readonly compressions: ManualCompression[] = [];
  readonly compressResults = new Map<string, CompressResult>();
  manualCount = 0;
  /** Full results for callers waiting in `sendMessage`, handed over once (not carried). */
  readonly delivered = new Map<string, TurnResult>();
  ended = false;
  endReason = 'ended';
  runTurns = 0;
  /** Continue-as-new found due in a workflow task the history records (see checkDue). */
  moveDue = false;
  childResult: TurnResult | null = null;
  /** Child agents' approval requests (workflows/child-approvals.ts): only while they run, so never carried. */
  childApprovals: ChildApproval[] = [];
  /** Background delegations still running; none may be running at continue-as-new. */
  readonly background: ChildBatch[] = [];
  /** Signals ignored (malformed, over a bound, too late): signals cannot be refused, so the state says so. */
  get ignored(): { count: number; lastReason: string | null } {
    return this.state.ignoredSignals;
  }

  /** Search attributes of this run, following every status change. */
  readonly attributes = new SearchAttributePublisher();

  constructor(
    readonly state: ConversationState,
    readonly canAfterTurns: number,
  ) {}

  /** A signal was ignored: logged, and counted in the state query (`ignored_messages`). */
  noteIgnored(what: string, reason: string): void {
    this.ignored.count += 1;
    this.ignored.lastReason = `${what}: ${reason}`.slice(0, 500);
    log.warn(`ignored ${what}`, { reason: this.ignored.lastReason });
  }

  /** The Web UI's view of the run: current details, and the search attributes (HeraldStatus follows every status). */
  refreshDetails(): void {
    setCurrentDetails(
      describe(
        this.state,
        this.current,
        this.ended,
        this.backgroundSessions(),
        this.compressing,
        openChildApprovals(this),
      ),
    );
    this.attributes.publish(this.state, heraldStatus(this.state, this.current, this.ended, this.compressing));
  }

  /** The start message and the worker's redacted preview of it (prepare): the title the memo may show. */
  firstShown: { text: string; shown: string | undefined } | undefined;

  backgroundSessions(): string[] {
    return this.background.flatMap((b) => b.children.map((c) => c.sessionId));
  }

  /** The id is queued, answered, or running now. */
  isKnownMessage(id: string): boolean {
    return (
      this.state.queue.some((m) => m.id === id) ||
      findResult(this.state, id) !== undefined ||
      (this.current !== undefined && (this.current.messageId === id || this.current.steeredIds.includes(id)))
    );
  }

  /** Why a new message cannot be queued now (undefined: it can). */
  queueRefusal(text: string): string | undefined {
    const q = this.state.queue;
    if (q.length >= MAX_QUEUED_MESSAGES)
      return `${q.length} messages are already waiting (at most ${MAX_QUEUED_MESSAGES}); wait for a turn to finish`;
    // Encoded bytes (JSON in UTF-8, an escaped control character 6): what the queue costs as the
    // continue-as-new input that carries it, under Temporal's 2 MB payload limit with margin.
    const bytes = q.reduce((n, m) => n + jsonBytes(m.text), 0) + jsonBytes(text);
    if (bytes > MAX_QUEUED_BYTES)
      return `the waiting messages would hold ${bytes} bytes (at most ${MAX_QUEUED_BYTES}); put long text in a workspace file and refer to it`;
    return undefined;
  }

  /** Why steer text cannot be taken now (undefined: it can). */
  steerRefusal(text: string): string | undefined {
    const p = this.state.pendingSteer;
    if (p.length >= MAX_PENDING_STEER) return `${p.length} steer messages are already waiting for the next model call`;
    const bytes = p.reduce((n, t) => n + jsonBytes(t), 0) + jsonBytes(text);
    if (bytes > MAX_PENDING_STEER_BYTES)
      return `waiting steer text would hold ${bytes} bytes (at most ${MAX_PENDING_STEER_BYTES})`;
    return undefined;
  }

  enqueue(msg: QueuedMessage): void {
    const s = this.state;
    s.queue.push(...s.heldReports.splice(0));
    s.queue.push(msg);
    if (this.current && s.busyPolicy === 'interrupt') this.current.requestStop('superseded');
    this.refreshDetails();
  }

  /** Reports of stopped background children wait (in the carried state) for the user's next message. */
  holdReport(msg: QueuedMessage): void {
    const held = this.state.heldReports;
    const used = held.reduce((n, m) => n + utf8Bytes(m.text), 0);
    const room = MAX_HELD_REPORT_BYTES - used;
    if (room < 1_000) {
      log.warn('background report dropped: too many held reports', { id: msg.id });
      return;
    }
    held.push({ ...msg, text: clampBytes(msg.text, room, '\n[…report cut]') });
  }

  stopBackground(): void {
    for (const batch of this.background) {
      if (batch.ending) continue;
      batch.ending = 'stopped';
      void stopChildren(batch);
    }
  }

  /**
   * Continue-as-new is due: Temporal suggests it, the turn count, Herald's own history bounds, or
   * a new build became current (a run is pinned to its build; it moves at continue-as-new).
   */
  canDue(): boolean {
    if (this.background.length > 0) return false;
    const info = workflowInfo();
    const own = info.historyLength >= CAN_HISTORY_EVENTS || (info.historySize ?? 0) >= CAN_HISTORY_BYTES;
    return info.continueAsNewSuggested || this.runTurns >= this.canAfterTurns || own || this.upgradeDue();
  }

  /** A Worker Deployment made another build current: the next run should start there. */
  upgradeDue(): boolean {
    return workflowInfo().targetWorkerDeploymentVersionChanged === true;
  }

  /**
   * Called only where the workflow task is one the history records — a signal, an accepted update,
   * the end of a turn or of a compression — so a replay decides the same in the same task.
   * Continue-as-new and stopping a turn read per-task server flags (`continueAsNewSuggested`, the
   * history length, a new current build); a task whose only input was an update its validator
   * rejected is not recorded, and a decision taken there could not be replayed.
   */
  checkDue(): void {
    if (this.canDue()) this.moveDue = true;
    this.stopIfHistoryTooLarge();
  }

  /**
   * New updates that would add work (`sendMessage`, `setModel`, `reloadTools`) are refused while the
   * run is about to move, so steady traffic cannot postpone the move (the client sends again, to the
   * next run). Read from `moveDue`, which only recorded tasks set: the refusal agrees with what the
   * loop will do, and a refusal leaves the workflow nothing to do in its task.
   */
  draining(): boolean {
    return this.moveDue;
  }

  /** A flood of signals mid-turn: stop the turn before history reaches Temporal's limits. */
  stopIfHistoryTooLarge(): void {
    if (!this.current || this.current.stopRequested || !this.historyTooLarge()) return;
    log.warn('history near its limit: stopping the turn so the conversation continues in a new run');
    this.current.requestStop('history_limit');
  }

  /** History so large that a running turn must stop for the run to continue as new. */
  historyTooLarge(): boolean {
    const info = workflowInfo();
    return info.historyLength >= STOP_HISTORY_EVENTS || (info.historySize ?? 0) >= STOP_HISTORY_BYTES;
  }
}
