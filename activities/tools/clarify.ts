/**
 * `clarify`: ask the user a question (optionally with choices) and wait for the answer. An
 * agent-level tool: the workflow asks and waits itself (update `answerClarify`); this definition
 * gives the model its schema and the batch planner its traits.
 */
import { z } from 'zod';
import { oneLine } from '../../common/text.js';
import { defineTool } from './registry.js';

export const clarifyTool = defineTool({
  name: 'clarify',
  toolset: 'clarify',
  description:
    'Ask the user a question when you cannot proceed without their decision (ambiguous request, missing information, a ' +
    'choice with consequences). Offer choices when there are a few obvious options. Waits for the answer.',
  parameters: z
    .object({
      question: z.string().min(1).max(2000).describe('The question, self-contained'),
      choices: z.array(z.string().min(1).max(200)).max(10).optional().describe('Options the user can pick from'),
    })
    .strict(),
  traits: { readOnly: true, pathScoped: false, serial: true },
  agentLevel: true,
  summarize: (a) => `clarify: ${oneLine(a.question, 100)}`,
  timeoutSeconds: () => 30,
  // eslint-disable-next-line @typescript-eslint/require-await -- never called: the workflow answers clarify
  async handler() {
    return { content: 'clarify is answered by the conversation itself', isError: true };
  },
});
