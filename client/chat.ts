/**
 * `herald chat`: an interactive REPL on one conversation. Replies stream in from the event side
 * channel; typing while the agent works follows the busy policy; Ctrl-C or `/stop` interrupts.
 */
import { createInterface } from 'node:readline';
import pc from 'picocolors';
import type { ApprovalDecision, ApprovalScope, TurnResult } from '../common/contract.js';
import { lastEventSeq } from '../activities/store/events.js';
import { createDb } from '../activities/store/db.js';
import type { Conversation, HeraldClient, StartOptions } from './client.js';
import { newSessionId } from './client.js';
import type { EventWatch } from './events.js';
import { EventRenderer } from './render.js';

export interface ChatOptions {
  sessionId?: string | undefined;
  start: StartOptions;
  showReasoning: boolean;
}

const HELP =
  'commands: /stop  /steer <text>  /approve once|session|always|deny [rule]  /compress [focus]  /new  /resume <id>  /usage  ' +
  '/model <name>  /help  /quit   (Ctrl-C stops a running turn)';

/** What can be typed at the approval prompt (or after /approve); `sr`/`ar` widen the approval to the rule. */
const DECISIONS: Record<string, { decision: ApprovalDecision; scope?: ApprovalScope }> = {
  o: { decision: 'once' },
  once: { decision: 'once' },
  s: { decision: 'session' },
  session: { decision: 'session' },
  sr: { decision: 'session', scope: 'rule' },
  'session rule': { decision: 'session', scope: 'rule' },
  a: { decision: 'always' },
  always: { decision: 'always' },
  ar: { decision: 'always', scope: 'rule' },
  'always rule': { decision: 'always', scope: 'rule' },
  d: { decision: 'deny' },
  deny: { decision: 'deny' },
  n: { decision: 'deny' },
  no: { decision: 'deny' },
};

export async function runChat(client: HeraldClient, options: ChatOptions): Promise<void> {
  const interactive = Boolean(process.stdin.isTTY);
  // While the agent waits for an approval or an answer, the next line typed is the reply.
  let pendingApproval: { requestId: string } | undefined;
  let pendingClarify: { requestId: string; choices: string[] } | undefined;
  const renderer = new EventRenderer({
    reasoning: options.showReasoning,
    spinner: Boolean(process.stderr.isTTY),
    onApproval: (r) => {
      pendingApproval = r;
      rl.setPrompt(pc.yellow('approve › '));
      rl.prompt();
    },
    onClarify: (r) => {
      pendingClarify = r;
      rl.setPrompt(pc.cyan('answer › '));
      rl.prompt();
    },
  });
  let start: StartOptions = { source: 'cli', ...options.start };
  let conv: Conversation = client.conversation(options.sessionId ?? newSessionId());
  let watch: EventWatch | undefined;
  let busy = 0;

  const attach = async () => {
    await watch?.stop();
    watch = undefined;
    const url = client.settings.databaseUrl;
    if (!url) return;
    const db = createDb(url, 1);
    const from = await lastEventSeq(db, conv.sessionId).finally(() => db.end());
    watch = await conv.watch((e) => renderer.render(e), from);
  };
  await attach();
  process.stderr.write(
    pc.dim(
      `session ${conv.sessionId}${client.settings.uiUrl ? ` · Web UI ${client.settings.uiUrl}` : ''} · /help for commands\n`,
    ),
  );

  const rl = createInterface({
    input: process.stdin,
    output: process.stdout,
    prompt: pc.bold('› '),
    terminal: interactive,
  });
  const prompt = () => {
    if (busy === 0) rl.prompt();
  };
  let closing: Promise<void> | undefined;
  const decide = async ({ decision, scope }: { decision: ApprovalDecision; scope?: ApprovalScope }) => {
    const id = pendingApproval!.requestId;
    pendingApproval = undefined;
    rl.setPrompt(pc.bold('› '));
    await conv
      .approve(id, decision, scope)
      .catch((err: unknown) => process.stderr.write(pc.red(`error: ${(err as Error).message}\n`)));
  };
  let inputClosed = false;
  let onIdle: () => void = prompt;

  const send = (text: string) => {
    busy += 1;
    conv
      .send(text, { start })
      .then((r: TurnResult) => {
        if (!watch) {
          if (r.final_response) process.stdout.write(`${r.final_response}\n`);
          if (r.failed) process.stderr.write(pc.red(`error: ${r.error ?? 'the turn failed'}\n`));
          if (r.interrupted) process.stderr.write(pc.yellow('(interrupted)\n'));
        }
      })
      .catch((err: unknown) => {
        renderer.stopSpinner();
        process.stderr.write(pc.red(`error: ${(err as Error).message}\n`));
      })
      .finally(() => {
        busy -= 1;
        if (closing === undefined) onIdle();
      });
  };

  const command = async (line: string): Promise<boolean> => {
    const [cmd, ...rest] = line.split(' ');
    const arg = rest.join(' ').trim();
    switch (cmd) {
      case '/quit':
      case '/exit':
        return false;
      case '/help':
        process.stderr.write(`${HELP}\n`);
        break;
      case '/stop':
        await conv.stop('user');
        break;
      case '/approve': {
        const decision = DECISIONS[arg.toLowerCase().replace(/\s+/g, ' ')];
        if (!pendingApproval || !decision)
          process.stderr.write(
            pendingApproval
              ? 'usage: /approve once|session|always|deny (session rule|always rule: every command of the rule)\n'
              : 'no approval is pending\n',
          );
        else await decide(decision);
        break;
      }
      case '/compress': {
        process.stderr.write(pc.dim('compressing…\n'));
        const r = await conv.compress(arg || undefined);
        process.stderr.write(`${r.message}\n`);
        break;
      }
      case '/steer':
        if (arg) await conv.steer(arg);
        break;
      case '/new':
        conv = client.conversation(newSessionId());
        await attach();
        process.stderr.write(pc.dim(`new session ${conv.sessionId}\n`));
        break;
      case '/resume':
        if (!arg) process.stderr.write('usage: /resume <session id>\n');
        else {
          conv = client.conversation(arg);
          await attach();
          process.stderr.write(pc.dim(`resumed session ${conv.sessionId}\n`));
        }
        break;
      case '/model':
        if (!arg) process.stderr.write('usage: /model <name> (applies to the next new session)\n');
        else {
          start = { ...start, model: arg };
          conv = client.conversation(newSessionId());
          await attach();
          process.stderr.write(pc.dim(`new session ${conv.sessionId} on ${arg}\n`));
        }
        break;
      case '/usage': {
        const s = await conv.state().catch(() => undefined);
        if (!s) process.stderr.write('no usage yet\n');
        else
          process.stderr.write(
            `${s.turn} turns · ${s.usage.total_tokens} tokens (in ${s.usage.input_tokens}, out ${s.usage.output_tokens}, cache ${s.usage.cache_read_tokens}) · $${s.usage.cost_usd.toFixed(4)}\n`,
          );
        break;
      }
      default:
        process.stderr.write(`unknown command ${cmd}; ${HELP}\n`);
    }
    return true;
  };

  await new Promise<void>((resolve) => {
    const finish = () => {
      closing ??= (async () => {
        rl.close();
        renderer.stopSpinner();
        await watch?.stop();
        resolve();
      })();
    };
    // Piped input runs one line at a time, each after the previous turn ends; typed input while a
    // turn runs follows the conversation's busy policy.
    const backlog: string[] = [];
    const handle = (line: string) => {
      if (!line) return prompt();
      if (pendingApproval && !line.startsWith('/')) {
        const decision = DECISIONS[line.trim().toLowerCase().replace(/\s+/g, ' ')];
        if (!decision) {
          process.stderr.write(
            'answer o (once), s (session), a (always), d (deny), or sr/ar (session/always for every command of the rule)\n',
          );
          return rl.prompt();
        }
        void decide(decision);
        return;
      }
      if (pendingClarify && !line.startsWith('/')) {
        const n = Number(line);
        const answer =
          Number.isInteger(n) && n >= 1 && n <= pendingClarify.choices.length ? pendingClarify.choices[n - 1]! : line;
        const id = pendingClarify.requestId;
        pendingClarify = undefined;
        rl.setPrompt(pc.bold('› '));
        void conv
          .answer(answer, id)
          .catch((err: unknown) => process.stderr.write(pc.red(`error: ${(err as Error).message}\n`)));
        return;
      }
      if (line.startsWith('/')) {
        void command(line).then(
          (keepGoing) => (keepGoing ? next() : finish()),
          (err: unknown) => {
            process.stderr.write(pc.red(`error: ${(err as Error).message}\n`));
            next();
          },
        );
        return;
      }
      if (busy > 0) {
        void conv
          .post(line)
          .catch((err: unknown) => process.stderr.write(pc.red(`error: ${(err as Error).message}\n`)));
        return;
      }
      send(line);
    };
    const next = () => {
      if (busy > 0) return;
      const line = backlog.shift();
      if (line === undefined) return inputClosed ? finish() : prompt();
      handle(line);
    };
    onIdle = next;
    rl.on('line', (raw) => {
      const line = raw.trim();
      if (interactive) return handle(line);
      backlog.push(line);
      next();
    });
    rl.on('SIGINT', () => {
      if (busy > 0) {
        process.stderr.write(pc.yellow('\n/stop\n'));
        void conv.stop('user').catch(() => {});
      } else finish();
    });
    rl.on('close', () => {
      // End of input: finish once the running turn and any piped lines are done.
      inputClosed = true;
      next();
    });
    prompt();
  });
}
