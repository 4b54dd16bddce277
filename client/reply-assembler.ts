/**
 * Rebuilds the streamed text of turns from events. A retried model call first emits
 * `stream.reset` for its iteration: the text that attempt had streamed is dropped, so a client's
 * final text is never duplicated.
 */
import type { StoredEvent } from './events.js';

interface TurnText {
  /** Text per model call (iteration) of the turn, in order. */
  byIteration: Map<number, string>;
  reasoning: Map<number, string>;
}

export class ReplyAssembler {
  private readonly turns = new Map<string, TurnText>();

  apply(e: StoredEvent): void {
    const turnId = e.turn_id ?? '';
    const iteration = typeof e.payload.iteration === 'number' ? e.payload.iteration : 0;
    const turn = this.turn(turnId);
    if (e.kind === 'stream.reset') {
      turn.byIteration.delete(iteration);
      turn.reasoning.delete(iteration);
    } else if (e.kind === 'text.delta' && typeof e.payload.text === 'string') {
      turn.byIteration.set(iteration, (turn.byIteration.get(iteration) ?? '') + e.payload.text);
    } else if (e.kind === 'reasoning.delta' && typeof e.payload.text === 'string') {
      turn.reasoning.set(iteration, (turn.reasoning.get(iteration) ?? '') + e.payload.text);
    }
  }

  /** Everything the model said in a turn, each model call's text on its own. */
  texts(turnId: string): string[] {
    const t = this.turns.get(turnId);
    return t ? [...t.byIteration.entries()].sort(([a], [b]) => a - b).map(([, text]) => text) : [];
  }

  /** The text of a turn's last model call: its reply when the turn ended with text. */
  lastText(turnId: string): string {
    return this.texts(turnId).at(-1) ?? '';
  }

  private turn(id: string): TurnText {
    let t = this.turns.get(id);
    if (!t) {
      t = { byIteration: new Map(), reasoning: new Map() };
      this.turns.set(id, t);
    }
    return t;
  }
}
