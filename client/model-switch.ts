/**
 * `/model <name> [--provider p]`: switch the conversation's model in place (the `setModel` update:
 * same session, same transcript). Before the first message there is no conversation yet: the
 * choice becomes the start options instead.
 */
import type { SetModelInput } from '../common/contract.js';
import { PROVIDER_NAMES } from '../common/providers.js';
import type { Conversation, StartOptions } from './client.js';

export function parseModelArgs(arg: string): SetModelInput | string {
  const words = arg.trim().split(/\s+/).filter(Boolean);
  const at = words.indexOf('--provider');
  const provider = at >= 0 ? words[at + 1] : undefined;
  if (at >= 0) words.splice(at, 2);
  if (words.length !== 1) return 'usage: /model <name> [--provider <provider>]';
  if (at >= 0 && !(PROVIDER_NAMES as readonly string[]).includes(provider ?? ''))
    return `unknown provider "${provider ?? ''}" (one of ${PROVIDER_NAMES.join(', ')})`;
  return { model: words[0]!, ...(provider ? { provider: provider as SetModelInput['provider'] } : {}) };
}

export async function switchModel(
  conv: Conversation,
  arg: string,
  started: boolean,
  start: StartOptions,
): Promise<string> {
  const input = parseModelArgs(arg);
  if (typeof input === 'string') return input;
  if (!started) {
    start.model = input.model;
    if (input.provider) start.provider = input.provider;
    return `model: ${input.model}${input.provider ? ` via ${input.provider}` : ''} (for this session's first message)`;
  }
  try {
    const r = await conv.setModel(input);
    const when =
      r.applies === 'now' ? 'from the next message' : 'from the next turn (this one finishes on the previous model)';
    return `model: ${r.model} via ${r.provider} ${when}; was ${r.previous.model}`;
  } catch (err) {
    return `model not switched: ${(err as Error).message}`;
  }
}
