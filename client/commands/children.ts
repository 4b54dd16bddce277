/**
 * `herald children <session>` (docs/delegation.md): a conversation's child agents with their task,
 * status and progress; `--stop <child>` stops one (its partial result goes to the parent, which
 * goes on), `--steer <child> "text"` steers one.
 */
import type { Command } from 'commander';
import pc from 'picocolors';
import type { ChildAgent } from '../children.js';
import { print, withClient } from './shared.js';

const TASK_MAX = 60;

function cut(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/** One line per child: its id (after the parent's, when it extends it), status, calls, tokens, task. */
export function renderChildren(parent: string, children: readonly ChildAgent[]): string {
  if (!children.length) return `${parent} has no child agents`;
  const rows = children.map((c) => {
    const id = c.session_id.startsWith(`${parent}.`) ? c.session_id.slice(parent.length + 1) : c.session_id;
    const status = c.status === 'running' && c.activity ? `running (${c.activity})` : c.status;
    return [id, status, String(c.model_calls), String(c.tokens), cut(c.task, TASK_MAX)];
  });
  const head = ['CHILD', 'STATUS', 'CALLS', 'TOKENS', 'TASK'];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (r: string[]) =>
    r
      .map((cell, i) => (i === r.length - 1 ? cell : cell.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  const colour = (c: ChildAgent, text: string) =>
    c.status === 'running'
      ? pc.cyan(text)
      : c.status === 'failed'
        ? pc.red(text)
        : c.status === 'stopped'
          ? pc.yellow(text)
          : text;
  return [pc.dim(line(head)), ...rows.map((r, i) => colour(children[i]!, line(r)))].join('\n');
}

export function registerChildren(program: Command): void {
  program
    .command('children')
    .description("list a conversation's child agents; stop or steer one")
    .argument('<session>', 'session id of the delegating conversation')
    .argument('[text]', 'with --steer: what to tell the child')
    .option('--stop <child>', 'stop this child: its partial result goes to the parent, which goes on')
    .option('--steer <child>', 'steer this running child with <text>')
    .option('--json', 'print JSON')
    .action(async (session: string, text: string | undefined, o: { stop?: string; steer?: string; json?: boolean }) => {
      if (o.stop && o.steer) throw new Error('--stop and --steer: one at a time');
      if (o.steer && !text?.trim())
        throw new Error('--steer <child> needs the text to send: herald children <session> --steer <child> "text"');
      await withClient(async (client) => {
        const { findSession } = await import('../session-ref.js');
        const conversation = (await findSession(client, session)).conversation;
        if (o.stop) {
          const child = await conversation.stopChild(o.stop);
          print(
            Boolean(o.json),
            { stopped: child },
            `stopped ${child}: what it had so far goes to ${conversation.sessionId} as its partial result`,
          );
          return;
        }
        if (o.steer) {
          const child = await conversation.steerChild(o.steer, text!);
          print(Boolean(o.json), { steered: child }, `steered ${child}: it reads this at its next model call`);
          return;
        }
        const children = await conversation.children();
        print(Boolean(o.json), children, renderChildren(conversation.sessionId, children));
      });
    });
}
