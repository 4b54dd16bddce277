/**
 * Tool-loop guardrails (docs/loop-guard.md): small models call the same tool with the same arguments again
 * and again. Pure decisions over small keys (a hash of the tool name and canonical arguments, a
 * hash of the result); the workflow keeps one LoopGuard per turn and acts on its answers. The
 * guard never stands in the way of real work: run the tests, fix the code, run them again.
 *
 * What a repeat is. A call is a *repeat* when the same key ran earlier in the turn, nothing that
 * could change its result happened since, and its result (when it runs) is unchanged. "Could change
 * its result" is counted as a version of the workspace (`version`), moved by every call that ran
 * and may have changed something (`CallEffect`): a `write_file` or `patch` that wrote, a `memory`
 * call that succeeded, every `terminal` call, every MCP tool not marked read-only, a delegation, a
 * person's answer to `clarify`, steer text from the user (`changed`). It is not moved by reads, by
 * `todo` (its list is the workflow's own; no other call reads it) or by a built-in edit that failed
 * (it checks before it changes anything). A key whose version moved is forgotten: the next call of
 * it is a first call again, whatever its result.
 *
 * What the guard does with a repeat:
 *  - Only a read (`none`: the tool's read-only trait) is ever *answered from its earlier result*
 *    without running: from its second repeat, or its first when the earlier result was an error.
 *  - Anything else runs every time (its result may differ: a test run, an MCP call; or it acts).
 *    Run again with the same result it counts as a repeat: the next request carries a nudge, and
 *    a built-in edit (`checked`) that failed the same way again pauses the tools (below).
 *  - Past `maxRepeats` any repeat is refused: not run, answered with a refusal (the fifth identical
 *    `terminal` call in a row, nothing changed between, same output each time).
 *  - When the last `noProgressCalls` calls were all repeats the turn ends (`guardrail_halt`).
 *  - Identical calls in one reply (`duplicatesInReply`) run once only when they are reads with no
 *    call that may change something between them; other duplicates run in order.
 *
 * Small models read none of those notes (Qwen2.5-Coder 1.5B on llama.cpp called `read_file` on the
 * same file until refused, six times in a row). So once the guard has had to answer a call without
 * running it, the next request goes out without tools (`takePause`): the model can only answer with
 * what the results already hold, which is what it needed to do. Edits that put a file back the way
 * an earlier edit of the turn left it count as repeats too (`edited`).
 */
import type { ToolCallKind } from './tool-batch.js';

export interface LoopGuardSettings {
  enabled: boolean;
  /** Repeats of one call (same arguments, same result) before it is refused. */
  maxRepeats: number;
  /** The turn ends when this many calls in a row were all repeats. */
  noProgressCalls: number;
}

export const DEFAULT_LOOP_GUARD: LoopGuardSettings = { enabled: true, maxRepeats: 3, noProgressCalls: 6 };

/** Counters over the session, shown by `state`. */
export interface LoopGuardStats {
  nudges: number;
  refusals: number;
  halts: number;
}

export const emptyLoopGuardStats = (): LoopGuardStats => ({ nudges: 0, refusals: 0, halts: 0 });

/**
 * What running a call may change, which decides how its repeats are treated:
 *  - `none`: nothing (the tool's read-only trait); its result follows from its arguments and the
 *    workspace, so an unchanged repeat may be answered from the earlier result.
 *  - `list`: only the workflow's own todo list, which no other call reads.
 *  - `checked`: a built-in edit (`write_file`, `patch`, `memory`) that checks its arguments before
 *    it changes anything: when it fails it changed nothing, and failing again the same way, with
 *    nothing changed between, is no progress.
 *  - `any`: anything else (`terminal`, an MCP tool not marked read-only): it may change the
 *    workspace or the world, and its result may differ from run to run.
 */
export type CallEffect = 'none' | 'list' | 'checked' | 'any';

/** Built-in tools whose failures change nothing (their first checks come before any write). */
const CHECKED_EDITS: ReadonlySet<string> = new Set(['write_file', 'patch', 'memory']);

/** The effect of a described call: its read-only trait, and for built-in tools its name. */
export function callEffect(call: { name: string; readOnly: boolean; kind: ToolCallKind }): CallEffect {
  if (call.readOnly) return 'none';
  if (call.kind === 'mcp') return 'any';
  if (call.kind === 'todo') return 'list';
  return CHECKED_EDITS.has(call.name) ? 'checked' : 'any';
}

/** What the workflow knows of one call: its name, what it may change, and its arguments' key. */
export interface GuardedCall {
  name: string;
  argsKey?: string | undefined;
  readOnly: boolean;
  /** Absent: `none` for a read-only call, else `any`. */
  effect?: CallEffect | undefined;
}

const effectOf = (call: GuardedCall): CallEffect => call.effect ?? (call.readOnly ? 'none' : 'any');

export type GuardDecision =
  | { action: 'run'; repeat: number }
  /** Answer with `text` instead of running (a reference to the earlier result, or a refusal). */
  | { action: 'answer'; text: string; refused: boolean };

interface Seen {
  resultKey?: string;
  /** The result was an error. */
  error: boolean;
  /** Repeats so far with the result unchanged. */
  repeats: number;
  /** Position of the latest result that actually ran. */
  seq: number;
  /** The workspace version just after it ran: a repeat needs the same one. */
  version: number;
}

/**
 * A result key for a call the workflow answers itself (`todo`): the activities hash tool results
 * with node:crypto, which workflow code cannot import, so this is FNV-1a (two 32-bit lanes over
 * UTF-16 units) — a key to compare two results of one turn, not a digest anyone trusts.
 */
export function workflowResultKey(text: string): string {
  let a = 0x811c9dc5;
  let b = 0x01000193 ^ text.length;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193) >>> 0;
    b = Math.imul(b ^ c ^ (i & 0xff), 0x85ebca6b) >>> 0;
  }
  return `w${a.toString(16).padStart(8, '0')}${b.toString(16).padStart(8, '0')}`;
}

/** The most keys one turn remembers (bounded by construction; the oldest is forgotten). */
const MAX_KEYS = 200;

export class LoopGuard {
  private readonly seen = new Map<string, Seen>();
  /** One flag per call of this turn, newest last: was it a repeat? (only the window is kept) */
  private readonly recent: boolean[] = [];
  private pendingNudges: string[] = [];
  private pause = false;
  /** What the turn's edits left files as (`edited`). */
  private readonly states = new Set<string>();
  /** Moves whenever something that could change a call's result happened (see the header). */
  private version = 0;

  /**
   * `stats` is counted into as the guard acts (the session's counters, or a fresh set).
   * After answering a call itself the guard asks for one tool-less request; and a read that failed
   * is answered from its earlier result from its first repeat.
   */
  constructor(
    readonly settings: LoopGuardSettings,
    readonly stats: LoopGuardStats = emptyLoopGuardStats(),
  ) {}

  private key(call: GuardedCall): string | undefined {
    return call.argsKey === undefined ? undefined : `${call.name}\u0000${call.argsKey}`;
  }

  /** Before a call runs: run it, or answer it without running. */
  decide(call: GuardedCall): GuardDecision {
    const key = this.key(call);
    const seen = key === undefined ? undefined : this.seen.get(key);
    if (!this.settings.enabled || !seen || seen.resultKey === undefined) return { action: 'run', repeat: 0 };
    if (seen.version !== this.version) {
      // Something since could have changed its result (an edit, a command): a first call again.
      this.seen.delete(key!);
      return { action: 'run', repeat: 0 };
    }
    const repeat = seen.repeats + 1;
    if (repeat > this.settings.maxRepeats) {
      seen.repeats = repeat;
      this.mark(true);
      this.stats.refusals += 1;
      this.pause = true;
      return { action: 'answer', refused: true, text: refusalText(call.name, repeat + 1) };
    }
    // Only a read is answered from its earlier result: it repeats harmlessly once (the file may
    // have changed outside the turn), and a read that failed fails the same way again.
    if (effectOf(call) === 'none' && (repeat >= 2 || seen.error)) {
      seen.repeats = repeat;
      this.mark(true);
      this.stats.nudges += 1;
      this.pause = true;
      return { action: 'answer', refused: false, text: referenceText(call.name, seen.seq) };
    }
    return { action: 'run', repeat };
  }

  /**
   * After a call ran: its result's key decides whether it was a repeat. Returns the note for the
   * turn's status event when it was (a nudge is then pending for the next request).
   */
  ran(call: GuardedCall, seq: number, resultKey: string | undefined, isError = false): string | undefined {
    const key = this.key(call);
    const seen = key === undefined ? undefined : this.seen.get(key);
    // Compared before this call's own effect moves the version: something else may have run meanwhile.
    const unchanged = seen !== undefined && seen.version === this.version && seen.resultKey === resultKey;
    this.moveIfChanged(effectOf(call), isError);
    if (key === undefined || resultKey === undefined || !this.settings.enabled) {
      this.mark(false);
      return undefined;
    }
    if (seen && unchanged) {
      seen.repeats += 1;
      seen.seq = seq;
      seen.version = this.version;
      this.mark(true);
      this.stats.nudges += 1;
      this.pendingNudges.push(nudgeText(call.name, seen.repeats + 1));
      // A built-in edit that failed the same way again: the model is not reading the error.
      if (isError && effectOf(call) === 'checked') this.pause = true;
      return 'same call, same result — nudged';
    }
    this.seen.delete(key);
    if (this.seen.size >= MAX_KEYS) this.seen.delete(this.seen.keys().next().value!);
    this.seen.set(key, { resultKey, repeats: 0, seq, error: isError, version: this.version });
    this.mark(false);
    return undefined;
  }

  private moveIfChanged(effect: CallEffect, isError: boolean): void {
    if (effect === 'any' || (effect === 'checked' && !isError)) this.version += 1;
  }

  /** Something outside the guarded calls may have changed the workspace (a delegation, a person's words). */
  changed(): void {
    this.version += 1;
  }

  /**
   * After a call that wrote a file (`fileState`: its path and new content, hashed): true when an
   * earlier edit of this turn already left the file exactly so. Edits going round in circles are no
   * progress even though every result differs: Qwen2.5-Coder 1.5B, asked only to report a value,
   * patched it 317 → 320, rewrote the file, patched it back, rewrote it, … for 22 model calls. The
   * call counts as a repeat and the next request goes without tools. A single revert (A → B → A)
   * is not a revisit: A was never an edit's result.
   */
  edited(fileState: string): boolean {
    if (!this.settings.enabled) return false;
    if (!this.states.has(fileState)) {
      if (this.states.size >= MAX_KEYS) this.states.delete(this.states.values().next().value!);
      this.states.add(fileState);
      return false;
    }
    this.recent[this.recent.length - 1] = true;
    this.stats.nudges += 1;
    this.pause = true;
    return true;
  }

  /**
   * A call that was not guarded (clarify, delegation, invalid arguments): it breaks a run of
   * repeats, and `changes` (a delegation's children worked, a person answered) moves the version.
   */
  other(changes = false): void {
    if (changes) this.changed();
    this.mark(false);
  }

  /** The nudges for the next model request (each once). */
  takeNudges(): string | undefined {
    const text = [...new Set(this.pendingNudges)].join('\n');
    this.pendingNudges = [];
    return text || undefined;
  }

  /** Whether the next request should offer no tools (asked once: the flag clears). */
  takePause(): boolean {
    const pause = this.pause && this.settings.enabled;
    this.pause = false;
    return pause;
  }

  /** The last `noProgressCalls` calls were all repeats: the turn should end. */
  shouldHalt(): boolean {
    const k = this.settings.noProgressCalls;
    return this.settings.enabled && k > 0 && this.recent.length >= k && this.recent.slice(-k).every(Boolean);
  }

  private mark(repeat: boolean): void {
    this.recent.push(repeat);
    const keep = Math.max(1, this.settings.noProgressCalls);
    if (this.recent.length > keep) this.recent.splice(0, this.recent.length - keep);
  }
}

/**
 * Reads of one reply identical to an earlier read of it, with no call between them that may change
 * something: index → index of the first such call. Every other call runs, in order.
 */
export function duplicatesInReply(calls: readonly GuardedCall[]): Map<number, number> {
  let first = new Map<string, number>();
  const dupes = new Map<number, number>();
  calls.forEach((c, i) => {
    const effect = effectOf(c);
    if (effect !== 'none') {
      if (effect !== 'list') first = new Map();
      return;
    }
    if (c.argsKey === undefined) return;
    const key = `${c.name}\u0000${c.argsKey}`;
    const at = first.get(key);
    if (at === undefined) first.set(key, i);
    else dupes.set(i, at);
  });
  return dupes;
}

const DUPLICATE = '[Duplicate call:';
const NOT_RUN = '[Not run again:';
const REFUSED = '[Refused:';
/** How the guard's own answers to a call begin (a paused request leaves them out: activities/model/paused-digest.ts). */
export const GUARD_ANSWER_PREFIXES = [DUPLICATE, NOT_RUN, REFUSED] as const;

export const duplicateText = (name: string, firstId: string) =>
  `${DUPLICATE} ${name} with the same arguments appears earlier in this reply (call ${firstId}); it ran once — use that result.]`;

export const nudgeText = (name: string, times: number) =>
  `[LOOP: you called ${name} ${times} times with the same arguments and got the same result. ` +
  'Use the result you already have; do not call it again. Answer the user, or try something different.]';

const referenceText = (name: string, seq: number) =>
  `${NOT_RUN} ${name} with these arguments already returned this result unchanged (message #${seq} above). ` +
  'Use that result instead of calling it again; answer the user, or try something different.]';

const refusalText = (name: string, times: number) =>
  `${REFUSED} ${name} was called ${times} times with the same arguments and the same result, nothing changed in between. ` +
  'It was not run this time. Give your answer with what you have, or take a different approach.]';

/**
 * The note of a request sent without tools because the model was repeating itself. Worded against
 * the real model (Qwen2.5-Coder 1.5B, docs/decisions/small-models.md): told only that tools were "paused", it
 * wrote the repeated call as a ```json block in 6 of 9 seeds (that text became the answer); told
 * that a call written now is not run and to answer in sentences, not JSON, in 3 of 9.
 */
export const PAUSE_NOTE =
  '[LOOP: you repeated the same call, so no tool will run for this reply: a tool call written now is not run. ' +
  "The results above already hold what those calls return. Write your answer to the user's request as plain sentences, not JSON.]";

/** The note of the one retry after a tool-less reply was still a tool call, written as text. */
export const PAUSE_RETRY_NOTE = (name: string) =>
  `[LOOP: your reply was a ${name} call written as text, but tools are paused and nothing ran. ` +
  'Do not write a tool call. Reply to the user in plain sentences, using the tool results above.]';

/** The closing note when the model answered a tool-less request with a tool call twice. */
export const pausedHaltNote = (name: string) =>
  `I stopped this turn: I kept asking for ${name} again instead of answering from the results I already had. ` +
  'Ask again (perhaps more specifically) to continue.';

/** The closing note of a turn the no-progress detector ended. */
export const haltNote = (calls: number) =>
  `I stopped this turn: my last ${calls} tool calls repeated earlier calls with the same results, so I was not making progress. ` +
  'Ask again (perhaps more specifically) to continue.';

/** JSON with object keys sorted at every level: the same arguments always give the same text. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
