/** Route a model request to the adapter of its API mode, with the SDK client for its provider. */
import type { ProviderRef } from '../common/providers.js';
import { wireTemperature } from '../shared/temperature.js';
import { callAnthropicMessages } from './anthropic-messages.js';
import { callChatCompletions } from './chat-completions.js';
import type { ClientOptions } from './clients.js';
import { anthropicClient, openaiClient } from './clients.js';
import { callResponses } from './codex-responses.js';
import type { CallContext, ModelRequest, ModelResponse } from './types.js';

export const DEFAULT_REQUEST_TIMEOUT_SECONDS = 600;

export type DispatchOptions = ClientOptions;

/** Endpoints and models that refused a temperature (reasoning models take only their default). */
const noTemperature = new Set<string>();

/**
 * Make the call; a request with a temperature that the model refuses ("Unsupported parameter:
 * 'temperature'", "only the default (1) value is supported") is made once more without it, and the
 * model is not sent one again by this worker.
 */
export async function dispatchModelCall(
  ref: ProviderRef,
  request: ModelRequest,
  ctx: CallContext,
  o: DispatchOptions,
): Promise<ModelResponse> {
  const key = `${ref.baseUrl}|${ref.model}`;
  const temperature = noTemperature.has(key) ? undefined : wireTemperature(ref.apiMode, request.temperature);
  const { temperature: _asked, ...rest } = request;
  if (temperature === undefined) return await dispatchOnce(ref, rest, ctx, o);
  try {
    return await dispatchOnce(ref, { ...rest, temperature }, ctx, o);
  } catch (err) {
    if (ctx.signal.aborted || !refusesTemperature(err)) throw err;
    noTemperature.add(key);
    return await dispatchOnce(ref, rest, ctx, o);
  }
}

/** A 400/422 whose message says the temperature parameter or its value is not supported. */
export function refusesTemperature(err: unknown): boolean {
  const e = err as { status?: number; message?: string };
  if (e.status !== 400 && e.status !== 422) return false;
  const text = String(e.message ?? '').toLowerCase();
  return (
    text.includes('temperature') &&
    /unsupported|not supported|does not support|unknown parameter|not allowed|only the default/.test(text)
  );
}

async function dispatchOnce(
  ref: ProviderRef,
  request: ModelRequest,
  ctx: CallContext,
  o: DispatchOptions,
): Promise<ModelResponse> {
  switch (ref.apiMode) {
    case 'chat_completions':
      return await callChatCompletions(openaiClient(ref, o), ref.baseUrl, request, ctx);
    case 'codex_responses':
      return await callResponses(openaiClient(ref, o), request, ctx);
    case 'anthropic_messages':
      return await callAnthropicMessages(anthropicClient(ref, o), request, ctx);
  }
}

/** A sink for calls nobody watches (summaries, titles): only liveness matters. */
export function silentSink(alive: () => void) {
  return { text: () => {}, reasoning: () => {}, toolGenerating: () => {}, alive };
}
