/**
 * One conversation of a chaos run, played the way a careful client would: each turn is sent with
 * its own message id, and when the call fails for a reason other than the conversation's own
 * failure (Temporal down, an update lost in a restart), the same message is sent again with the
 * same id — Herald answers a repeat from the turn it already ran (`turn_results`), so a resend
 * never runs a turn twice. Every resend and its error is recorded for the report.
 */
import type { TurnResult } from '../../../common/contract.js';
import type { HeraldClient, StartOptions } from '../../../client/client.js';
import { ConversationFailedError } from '../../../client/client.js';
import { turnScript } from './script.js';

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export interface TurnOutcome {
  turn: number;
  messageId: string;
  result?: TurnResult;
  /** From the first send to the answer. */
  ms: number;
  /** Errors the client surfaced, each followed by a resend with the same id. */
  errors: string[];
  /** The conversation failed, or the deadline passed, before the turn was answered. */
  gaveUp?: string;
}

export interface ConversationRun {
  c: number;
  sessionId: string;
  cwd: string;
  turns: TurnOutcome[];
  /** The workflow completed after `end`. */
  closed: boolean;
  closeErrors: string[];
}

export interface DriveOptions {
  client: HeraldClient;
  seed: number;
  c: number;
  sessionId: string;
  cwd: string;
  turns: number;
  /** Pause before each turn (ms). */
  pause: (turn: number) => number;
  /** Epoch ms after which a turn still unanswered counts as stuck. */
  deadline: number;
  /** The conversation's start options (beyond its workspace). */
  start?: Omit<StartOptions, 'cwd'>;
}

function errorLine(err: unknown): string {
  const e = err as Error & { cause?: Error & { code?: unknown }; code?: unknown };
  const cause = e.cause?.message && !e.message.includes(e.cause.message) ? ` (${e.cause.message})` : '';
  // A gRPC status code says which of Temporal's errors it was.
  const code =
    typeof e.code === 'number'
      ? ` [gRPC ${e.code}]`
      : typeof e.cause?.code === 'number'
        ? ` [gRPC ${e.cause.code}]`
        : '';
  return `${e.name ?? 'Error'}: ${e.message ?? String(err)}${cause}${code}`.replace(/\s+/g, ' ').slice(0, 300);
}

/** Resolve with the value, or reject after `ms` (the call goes on in the background). */
function within<T>(p: Promise<T>, ms: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`no answer within ${Math.round(ms / 1000)} s`)), Math.max(0, ms));
    p.then(
      (v) => (clearTimeout(t), resolve(v)),
      (e: unknown) => (clearTimeout(t), reject(e instanceof Error ? e : new Error(String(e)))),
    );
  });
}

export async function driveConversation(o: DriveOptions): Promise<ConversationRun> {
  const conv = o.client.conversation(o.sessionId);
  const run: ConversationRun = {
    c: o.c,
    sessionId: o.sessionId,
    cwd: o.cwd,
    turns: [],
    closed: false,
    closeErrors: [],
  };
  for (let t = 1; t <= o.turns; t++) {
    await sleep(o.pause(t));
    const script = turnScript(o.seed, o.c, t);
    const out: TurnOutcome = { turn: t, messageId: `m${t}`, ms: 0, errors: [] };
    run.turns.push(out);
    const started = Date.now();
    for (let attempt = 1; ; attempt++) {
      try {
        out.result = await within(
          conv.send(script.message, { id: out.messageId, start: { ...o.start, cwd: o.cwd } }),
          o.deadline - Date.now(),
        );
        break;
      } catch (err) {
        if (err instanceof ConversationFailedError) out.gaveUp = `the conversation failed: ${errorLine(err)}`;
        else if (Date.now() >= o.deadline) out.gaveUp = `no answer by the deadline (last: ${errorLine(err)})`;
        if (out.gaveUp) break;
        out.errors.push(errorLine(err));
        await sleep(Math.min(4000, 250 * 2 ** Math.min(attempt, 4)));
      }
    }
    out.ms = Date.now() - started;
    if (out.gaveUp) return run;
  }
  return run;
}

/** End the conversation and wait for its workflow to complete (retrying while a server is down). */
export async function closeConversation(client: HeraldClient, run: ConversationRun, deadline: number): Promise<void> {
  const conv = client.conversation(run.sessionId);
  for (let attempt = 1; Date.now() < deadline; attempt++) {
    try {
      await conv.end('chaos run over');
      await within(conv.handle.result(), deadline - Date.now());
      run.closed = true;
      return;
    } catch (err) {
      run.closeErrors.push(errorLine(err));
      await sleep(Math.min(4000, 250 * 2 ** Math.min(attempt, 4)));
    }
  }
}
