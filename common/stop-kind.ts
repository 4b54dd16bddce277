/**
 * What stopped a turn (docs/human-control.md): a person's `/stop`, a client that went away, a
 * deadline, a budget, a newer message under the `interrupt` busy policy, or history near its limit.
 * The turn's result (`stop_kind`), its `turn.ended` event, `state.last_result` and the transcript's
 * closing note all say which. Pure.
 */

export const STOP_KINDS = ['user', 'client_gone', 'deadline', 'budget', 'superseded', 'history_limit'] as const;
export type StopKind = (typeof STOP_KINDS)[number];

/** The kinds a `stop` signal may state (the others are the workflow's own). */
export const SIGNALLED_STOP_KINDS = ['user', 'client_gone', 'deadline'] as const;

/** The transcript's closing note of an interrupted turn (a person's stop keeps the plain one). */
export function interruptedNote(kind: StopKind | undefined): string {
  switch (kind) {
    case 'client_gone':
      return 'Operation interrupted: the client went away.';
    case 'deadline':
      return 'Operation interrupted: its deadline passed.';
    case 'budget':
      return 'Operation interrupted: the budget was spent.';
    case 'superseded':
      return 'Operation interrupted by a newer message.';
    case 'history_limit':
      return 'Operation interrupted: the conversation continues in a new run.';
    default:
      return 'Operation interrupted.';
  }
}
