/**
 * Herald's payload converter: Temporal's default (JSON, binary, null), except that decoding never
 * throws. The SDK decodes a signal's or update's arguments before any handler runs; a payload it
 * cannot decode (an unknown `encoding`, broken JSON bytes) would fail that workflow task, and every
 * retry of it, for good — one bad `temporal workflow signal` would wedge the conversation. Here
 * such a payload decodes to an `UndecodablePayload` marker instead: handlers see a value that
 * fails their schema, log it and ignore it; update validators reject it with a clear message.
 *
 * Loaded in the workflow sandbox (bundled with the workflows) and by the worker for activities:
 * it may import only `@temporalio/common`. Encryption and compression belong in payload codecs
 * (runtime/data-converter.ts), which run outside the sandbox on the encoded bytes.
 */
import type { Payload, PayloadConverter } from '@temporalio/common';
import { defaultPayloadConverter } from '@temporalio/common';

export const UNDECODABLE = '__heraldUndecodablePayload';

export interface UndecodablePayload {
  [UNDECODABLE]: true;
  /** The payload's `encoding` metadata as text (bounded). */
  encoding: string;
  /** Why it could not be decoded (bounded). */
  reason: string;
}

/**
 * What runtime/codec.ts puts in place of a payload a worker cannot decrypt (same string there);
 * its data is the reason, which the marker carries instead of "unknown encoding".
 */
const UNDECRYPTABLE_ENCODING = 'binary/herald-undecryptable';

export function isUndecodable(v: unknown): v is UndecodablePayload {
  return typeof v === 'object' && v !== null && (v as Record<string, unknown>)[UNDECODABLE] === true;
}

function encodingOf(p: Payload): string {
  const raw = p.metadata?.encoding;
  if (!raw) return '(none)';
  let text = '';
  for (const byte of raw.slice(0, 64)) text += byte >= 0x20 && byte < 0x7f ? String.fromCharCode(byte) : '?';
  return text;
}

export const payloadConverter: PayloadConverter = {
  toPayload(value) {
    return defaultPayloadConverter.toPayload(value);
  },
  fromPayload<T>(payload: Payload): T {
    if (encodingOf(payload) === UNDECRYPTABLE_ENCODING) {
      const marker: UndecodablePayload = {
        [UNDECODABLE]: true,
        encoding: UNDECRYPTABLE_ENCODING,
        reason: new TextDecoder().decode((payload.data ?? new Uint8Array()).subarray(0, 600)).slice(0, 300),
      };
      return marker as T;
    }
    try {
      return defaultPayloadConverter.fromPayload<T>(payload);
    } catch (err) {
      const marker: UndecodablePayload = {
        [UNDECODABLE]: true,
        encoding: encodingOf(payload),
        reason: (err instanceof Error ? err.message : String(err)).slice(0, 300),
      };
      return marker as T;
    }
  },
};
