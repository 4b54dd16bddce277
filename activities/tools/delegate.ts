/**
 * `delegate_task` (docs/delegation.md): hand one task, or a few independent ones, to child agents that work
 * in their own sessions and report back. An agent-level tool: the workflow starts the children as
 * child workflows and waits for them (workflows/delegation.ts); this definition gives the model its
 * schema and the workflow the parsed tasks.
 */
import { z } from 'zod';
import type { DelegationSettings } from '../../common/delegation.js';
import { DELEGATE_TOOL } from '../../common/delegation.js';
import { oneLine } from '../../common/text.js';
import { defineTool } from './registry.js';
import { TRAITS } from '../../common/tool-batch.js';

const GOAL_MAX_CHARS = 20_000;
const CONTEXT_MAX_CHARS = 100_000;

const taskSchema = z
  .object({
    goal: z.string().min(1).max(GOAL_MAX_CHARS).describe('What the child agent must achieve, self-contained'),
    context: z
      .string()
      .max(CONTEXT_MAX_CHARS)
      .optional()
      .describe('Everything it needs to know: it sees nothing of this conversation'),
    toolsets: z
      .array(z.string().min(1))
      .optional()
      .describe('Limit the child to these tools (names); default: your tools except clarify, memory, delegate_task'),
  })
  .strict();

export type DelegateArgs = z.infer<typeof taskSchema> & { tasks?: Array<z.infer<typeof taskSchema>> };

export function delegateTaskTool(settings: DelegationSettings) {
  const max = settings.maxConcurrentChildren;
  return defineTool({
    name: DELEGATE_TOOL,
    toolset: 'delegation',
    description:
      'Hand a task to a child agent that works on its own (same workspace, its own context) and reports back. ' +
      `Give \`goal\` (and \`context\`) for one task, or \`tasks\` for up to ${max} independent tasks that run at the ` +
      'same time. The child cannot see this conversation or ask questions: put everything it needs in the goal and ' +
      'context. Returns each child\u2019s status and report.',
    parameters: z
      .object({
        goal: taskSchema.shape.goal.optional(),
        context: taskSchema.shape.context,
        toolsets: taskSchema.shape.toolsets,
        tasks: z
          .array(taskSchema)
          .min(1)
          .max(max, `at most ${max} tasks per call; run the rest in a later call`)
          .optional()
          .describe('Several independent tasks, run in parallel'),
      })
      .strict()
      .refine((a) => (a.goal === undefined) !== (a.tasks === undefined), {
        message: 'give either `goal` (one task) or `tasks` (several), not both and not neither',
      }),
    traits: TRAITS.serial,
    agentLevel: true,
    summarize: (a) =>
      a.tasks ? `delegate_task: ${a.tasks.length} tasks` : `delegate_task: ${oneLine(a.goal ?? '', 100)}`,
    // The workflow stops a child at its own timeout; the batch deadline must not cut in first.
    timeoutSeconds: () => settings.childTimeoutSeconds + 60,
    // eslint-disable-next-line @typescript-eslint/require-await -- never called: the workflow runs the children
    async handler() {
      return { content: 'delegate_task is run by the conversation itself', isError: true };
    },
  });
}
