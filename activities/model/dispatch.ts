/** Route a model request to the adapter of its API mode, with the SDK client for its provider. */
import type { ProviderRef } from '../../common/providers.js';
import { callAnthropicMessages } from './anthropic-messages.js';
import { callChatCompletions } from './chat-completions.js';
import { anthropicClient, openaiClient } from './clients.js';
import { callResponses } from './codex-responses.js';
import type { CallContext, ModelRequest, ModelResponse } from './types.js';

export const DEFAULT_REQUEST_TIMEOUT_SECONDS = 600;

export interface DispatchOptions {
  env: NodeJS.ProcessEnv;
  timeoutMs: number;
  /** Which key of the provider's credential pool to use. */
  credentialIndex?: number | undefined;
}

export async function dispatchModelCall(
  ref: ProviderRef,
  request: ModelRequest,
  ctx: CallContext,
  o: DispatchOptions,
): Promise<ModelResponse> {
  switch (ref.apiMode) {
    case 'chat_completions':
      return await callChatCompletions(
        openaiClient(ref, o.env, o.timeoutMs, o.credentialIndex),
        ref.baseUrl,
        request,
        ctx,
      );
    case 'codex_responses':
      return await callResponses(openaiClient(ref, o.env, o.timeoutMs, o.credentialIndex), request, ctx);
    case 'anthropic_messages':
      return await callAnthropicMessages(anthropicClient(ref, o.env, o.timeoutMs, o.credentialIndex), request, ctx);
  }
}

/** A sink for calls nobody watches (summaries, titles): only liveness matters. */
export function silentSink(alive: () => void) {
  return { text: () => {}, reasoning: () => {}, toolGenerating: () => {}, alive };
}
