/** `herald state`: a conversation's state in a few lines (or all of it with `--json`). */
import type { Command } from 'commander';
import pc from 'picocolors';
import { describeMcpServers } from '../../common/mcp-state.js';
import { print, withClient } from './shared.js';

export function registerState(program: Command): void {
  program
    .command('state')
    .description("show a conversation's state")
    .argument('<session>', 'session id')
    .option('--json', 'print JSON')
    .action(async (session: string, o: { json?: boolean }) => {
      await withClient(async (client) => {
        const { findSession } = await import('../session-ref.js');
        const s = await (await findSession(client, session)).conversation.state();
        // Its child agents' approvals (`delegation.askPerson`) are listed and answered here too.
        const fromChildren = s.child_approvals ?? [];
        const text = [
          // The conversation id is what every command takes; after a compression the context lives in `<id>.<n>`.
          `session ${s.conversation_id}${s.session_id !== s.conversation_id ? ` (context ${s.session_id})` : ''} · ${s.status} · turn ${s.turn} · iteration ${s.budget.used}/${s.budget.max}`,
          `model ${s.model} via ${s.provider} (${s.api_mode}) · busy policy ${s.busy_policy}`,
          `usage ${s.usage.total_tokens} tokens · $${s.usage.cost_usd.toFixed(4)}`,
          ...(s.queued_messages.length ? [`queued: ${s.queued_messages.map((q) => q.preview).join(' | ')}`] : []),
          ...s.pending_approvals.map((a) => pc.yellow(`approval ${a.request_id} (${a.reason}): ${a.command}`)),
          ...fromChildren.map((a) =>
            pc.yellow(`approval ${a.request_id} (child agent ${a.child}, ${a.reason}): ${a.command}`),
          ),
          ...(s.clarify ? [pc.cyan(`question ${s.clarify.request_id}: ${s.clarify.question}`)] : []),
          ...(s.mcp ? [`MCP: ${describeMcpServers(s.mcp.servers).join(' · ') || 'no servers'}`] : []),
          ...(s.left_out ?? []).map((l) => pc.yellow(`left out: ${l}`)),
          ...(s.last_error ? [pc.red(`last error: ${s.last_error}`)] : []),
          ...(s.last_result?.final_response ? [`last reply: ${s.last_result.final_response.slice(0, 500)}`] : []),
        ].join('\n');
        print(Boolean(o.json), s, text);
      });
    });
}
