/** Failures inside a 200 response: a stream cut mid-response or an answer that is not usable. */
import Anthropic from '@anthropic-ai/sdk';
import { APIError } from 'openai';

/** A 200 response that is not a usable answer (no choices, a stream cut before it finished). */
export class MalformedResponseError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'MalformedResponseError';
  }
}

/**
 * Iterate a provider stream; a transport failure after the response started (undici's
 * "terminated", a reset socket) becomes a MalformedResponseError. Our own abort and errors the
 * provider reported inside the stream pass through unchanged.
 */
export async function* readStream<T>(stream: AsyncIterable<T>, signal: AbortSignal): AsyncGenerator<T> {
  try {
    for await (const item of stream) yield item;
  } catch (err) {
    if (signal.aborted || err instanceof APIError || err instanceof Anthropic.APIError) throw err;
    const detail =
      err instanceof Error
        ? `${err.message}${err.cause instanceof Error ? ` (${err.cause.message})` : ''}`
        : String(err);
    throw new MalformedResponseError(`the stream was cut mid-response: ${detail}`, { cause: err });
  }
}
