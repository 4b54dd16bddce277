/** `herald diff`, `herald rewind` and `herald fork` (docs/checkpoints.md). */
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { InvalidArgumentError } from 'commander';
import { withClient } from './shared.js';

function turnNumber(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('a turn number (1 or more)');
  return n;
}

export function registerCheckpoints(program: Command): void {
  program
    .command('diff')
    .description('what a turn changed in the workspace, whichever tool changed it (shell commands included)')
    .argument('<session>', 'session id or title')
    .option('--turn <n>', 'the turn (default: the latest that changed the workspace)', turnNumber)
    .option('--json', 'print JSON')
    .action(async (session: string, o: { turn?: number; json?: boolean }) => {
      await withClient(async (client) => {
        const { findSession } = await import('../session-ref.js');
        const { renderTurnDiff } = await import('../turn-diff.js');
        const conv = (await findSession(client, session)).conversation;
        const d = await conv.diff(o.turn);
        if (o.json) process.stdout.write(`${JSON.stringify(d ?? null, null, 2)}\n`);
        else if (!d)
          process.stderr.write(
            o.turn ? `turn ${o.turn} did not change the workspace\n` : 'no turn has changed the workspace\n',
          );
        else process.stdout.write(`${renderTurnDiff(d)}\n`);
      });
    });

  program
    .command('rewind')
    .description('put the workspace and the conversation back to before a turn (later turns stay readable)')
    .argument('<session>', 'session id or title')
    .requiredOption('--turn <n>', 'the first turn to undo', turnNumber)
    .option('--force', 'discard changes made outside Herald since its latest snapshot (they are saved first)')
    .option('--no-files', 'leave the workspace as it is')
    .option('--no-conversation', 'leave the transcript as it is')
    .option('--json', 'print JSON')
    .action(
      async (
        session: string,
        o: { turn: number; force?: boolean; files: boolean; conversation: boolean; json?: boolean },
      ) => {
        await withClient(async (client) => {
          const { findSession } = await import('../session-ref.js');
          const { describeRewind } = await import('../rewind-view.js');
          const conv = (await findSession(client, session)).conversation;
          const r = await conv.rewind({
            toTurn: o.turn,
            files: o.files,
            conversation: o.conversation,
            force: Boolean(o.force),
          });
          if (o.json) process.stdout.write(`${JSON.stringify(r, null, 2)}\n`);
          else process.stderr.write(`${describeRewind(r)}\n`);
          if (r.refused) process.exitCode = 1;
        });
      },
    );

  program
    .command('fork')
    .description('a new conversation from turn N of this one, with a copy of the workspace as that turn left it')
    .argument('<session>', 'session id or title')
    .requiredOption('--turn <n>', 'the last turn the new conversation keeps', turnNumber)
    .requiredOption('--cwd <dir>', 'the new workspace: a new folder inside a workspace root')
    .option('--json', 'print JSON')
    .action(async (session: string, o: { turn: number; cwd: string; json?: boolean }) => {
      await withClient(async (client) => {
        const { findSession } = await import('../session-ref.js');
        const conv = (await findSession(client, session)).conversation;
        const fork = await conv.fork({ atTurn: o.turn, cwd: resolve(o.cwd) });
        const r = { session_id: fork.sessionId, from: conv.sessionId, turn: o.turn, cwd: resolve(o.cwd) };
        if (o.json) process.stdout.write(`${JSON.stringify(r, null, 2)}\n`);
        else
          process.stderr.write(
            `forked ${conv.sessionId} at turn ${o.turn}: session ${fork.sessionId}, workspace ${r.cwd}\n` +
              `go on with: herald chat --resume ${fork.sessionId}\n`,
          );
      });
    });
}
