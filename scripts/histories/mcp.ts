/** The MCP scenario: tools found at session start, a call, a list-changed notification, reloadTools. */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { createTestStack } from '../../test/support/stack.js';
import { EVERYTHING_SERVER } from '../../test/support/mcp-servers.js';
import type { Scenario } from './support.js';
import { endConversation, expect, save } from './support.js';

export const mcpScenarios: readonly Scenario[] = [
  {
    name: 'mcp',
    stack: 'own',
    proves: {
      mcp: 'MCP tools found at session start, a call, a list-changed notification with discovery before the next turn, reloadTools',
    },
    record: () => recordMcp(),
  },
];

/**
 * MCP tools (patch mcp-tools): server-everything over stdio, found at session start; a call; its
 * list-changed notification followed by discovery before turn 2; the `reloadTools` update.
 */
async function recordMcp(): Promise<void> {
  const stack = await createTestStack({
    configYaml: [
      'mcp:',
      '  servers:',
      '    everything:',
      '      command: node',
      `      args: [${JSON.stringify(EVERYTHING_SERVER)}, stdio]`,
      '',
    ].join('\n'),
  });
  try {
    const ws = join(stack.workspaces, 'ws');
    mkdirSync(ws, { recursive: true });
    const conv = stack.herald.conversation('replay-mcp');
    stack.fake.script([
      { toolCalls: [{ name: 'mcp_everything_echo', arguments: { message: 'replayed' } }] },
      { text: 'echoed' },
      { text: 'turn two' },
    ]);
    const r1 = await conv.send('echo', { id: 'mcp1', start: { cwd: ws } });
    expect(r1.final_response === 'echoed', `turn 1 answered: ${JSON.stringify(r1)}`);
    const r2 = await conv.send('again', { id: 'mcp2' });
    expect(r2.final_response === 'turn two', 'turn 2 answered');
    const reloaded = await conv.reloadTools();
    expect(reloaded.tools.includes('mcp_everything_echo'), 'reloadTools listed the tools');
    const history = await stack.temporal.workflow.getHandle(conv.workflowId).fetchHistory();
    expect(
      history.events?.filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'discoverMcpTools')
        .length === 2,
      'discovered after the list-changed notification and on reloadTools',
    );
    stack.fake.assertDone();
    await endConversation(stack, conv.workflowId);
    await save(stack.temporal, 'mcp', conv.workflowId);
  } finally {
    await stack.close();
  }
}
