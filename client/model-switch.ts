/**
 * `/model <name>`: switch the running conversation's model in place. The workflow side (a
 * `setModel` update) is built separately; until a Conversation has `setModel`, the REPL says so
 * rather than starting a new session behind the user's back.
 */
import type { Conversation } from './client.js';

type WithSetModel = Conversation & { setModel?: (model: string) => Promise<unknown> };

export async function switchModel(conv: Conversation, model: string): Promise<string> {
  const c = conv as WithSetModel;
  if (typeof c.setModel !== 'function')
    return `switching models in place is coming; this session stays on its model (start one on ${model} with \`herald chat --model ${model}\`)`;
  await c.setModel(model);
  return `model: ${model} (from the next model call on)`;
}
