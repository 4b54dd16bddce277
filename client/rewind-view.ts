/** A rewind's result in words, for `herald rewind` and `/undo` (docs/checkpoints.md). */
import pc from 'picocolors';
import type { RewindResult } from '../common/contract.js';
import { visibleControls } from '../shared/command-display.js';
import { describeChanges } from '../common/checkpoints.js';

export function describeRewind(r: RewindResult): string {
  const lines: string[] = [];
  if (r.refused) {
    lines.push(pc.red(`rewind refused: ${r.refused}`));
    for (const p of r.would_lose ?? []) lines.push(pc.yellow(`  would lose: ${visibleControls(p)}`));
  }
  if (r.files)
    lines.push(
      r.files.note
        ? `files: nothing to restore (${r.files.note})`
        : `files restored to before turn ${r.to_turn}: ${describeChanges(r.files)}`,
    );
  if (r.files?.saved_as)
    lines.push(pc.dim(`changes made outside Herald were saved first (snapshot ${r.files.saved_as.slice(0, 12)})`));
  if (r.conversation)
    lines.push(
      `conversation back to before turn ${r.to_turn}: it continues in session ${r.conversation.session_id}; ` +
        `the ${r.conversation.discarded_messages} discarded message(s) stay readable in ${r.conversation.previous_session_id}`,
    );
  return lines.join('\n');
}
