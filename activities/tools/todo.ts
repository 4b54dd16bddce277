/**
 * `todo`: the agent's own task list. An agent-level tool: the workflow keeps the list in its
 * state (it survives continue-as-new and compression); this definition gives the model its schema.
 */
import { z } from 'zod';
import { MAX_TODOS, MAX_TODO_CHARS, TODO_STATUSES } from '../../common/todos.js';
import { defineTool } from './registry.js';
import { TRAITS } from '../../common/tool-batch.js';

export const todoTool = defineTool({
  name: 'todo',
  toolset: 'todo',
  description:
    'Read or write your task list for this conversation. Call without `todos` to read it. Pass `todos` to replace the ' +
    'list, or with `merge: true` to update items by id and add new ones. Keep one item in_progress at a time.',
  parameters: z
    .object({
      todos: z
        .array(
          z
            .object({
              id: z.string().min(1).max(64),
              content: z.string().min(1).max(MAX_TODO_CHARS),
              status: z.enum(TODO_STATUSES),
            })
            .strict(),
        )
        .max(MAX_TODOS)
        .optional()
        .describe('The items to write'),
      merge: z.boolean().optional().describe('Update by id instead of replacing the list'),
    })
    .strict(),
  traits: TRAITS.serial,
  agentLevel: true,
  summarize: (a) => (a.todos ? `todo: write ${a.todos.length} item(s)` : 'todo: read'),
  timeoutSeconds: () => 30,
  // eslint-disable-next-line @typescript-eslint/require-await -- never called: the workflow keeps the list
  async handler() {
    return { content: 'todo is handled by the conversation itself', isError: true };
  },
});
