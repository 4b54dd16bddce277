/** `herald approve` and `herald answer`: the decisions a conversation waits for from its user. */
import type { Command } from 'commander';
import { Argument } from 'commander';
import type { ApprovalDecision } from '../../common/contract.js';
import { APPROVAL_DECISIONS } from '../../common/contract.js';
import { withConversation } from './shared.js';

export function registerApprove(program: Command): void {
  program
    .command('approve')
    .description('decide a pending dangerous-command approval')
    .argument('<session>', 'session id')
    .argument('<request>', 'approval request id (see `herald state`)')
    .addArgument(new Argument('<decision>', 'decision').choices([...APPROVAL_DECISIONS]))
    .option('--rule', 'session/always: cover every command of the same rules, not only this command')
    .option('--reason <text>', 'deny: why, for the model (it reads this in the tool result)')
    .option('--as <name>', 'who answers, for the approvals audit (default: HERALD_IDENTITY or user@host)')
    .action(
      async (
        session: string,
        request: string,
        decision: ApprovalDecision,
        o: { rule?: boolean; reason?: string; as?: string },
      ) => {
        if (o.reason && decision !== 'deny')
          throw new Error('--reason goes with deny (the model reads why it may not run the command)');
        await withConversation(session, async (conv) => {
          await conv.approve(request, decision, o.rule ? 'rule' : undefined, o.reason, { by: o.as, via: 'cli' });
          const covers =
            decision === 'session' || decision === 'always'
              ? o.rule
                ? ' (every command of its rules)'
                : ' (this command)'
              : '';
          process.stderr.write(`${decision}${covers}: ${request}\n`);
        });
      },
    );
}

export function registerAnswer(program: Command): void {
  program
    .command('answer')
    .description("answer the agent's pending clarify question")
    .argument('<session>', 'session id')
    .argument('<text>', 'the answer')
    .action(async (session: string, text: string) => {
      await withConversation(session, async (conv) => {
        const { requestId } = await conv.answer(text);
        process.stderr.write(`answered ${requestId}\n`);
      });
    });
}
