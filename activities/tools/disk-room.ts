/**
 * The workspace disk cap (`sandbox.limits.workspaceMb`) as the file tools see it: a write that would
 * take the workspace over the cap is refused before anything is written, with the numbers. The
 * sandbox enforces the same cap on commands (see sandbox/workspace-walk.ts).
 */
import type { ToolContext } from './registry.js';

/** Why writing `added` more bytes is refused, or undefined when there is room (or no cap). */
export async function diskRoomRefusal(ctx: ToolContext, added: number, shown: string): Promise<string | undefined> {
  if (added <= 0) return undefined;
  const room = await ctx.sandbox?.workspaceRoom?.(ctx.cwd);
  if (!room || added <= room.room) return undefined;
  return (
    `Refused: writing ${shown} would take the workspace over its disk cap of ${room.capMb} MB ` +
    `(sandbox.limits.workspaceMb; it holds ${room.usedMb} MB now). Delete files to make room, or ask the user to raise the cap.`
  );
}
