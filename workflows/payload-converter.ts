/**
 * Herald's payload converter: Temporal's default (JSON, binary, null), except that decoding never
 * throws. The SDK decodes a signal's or update's arguments before any handler runs; a payload it
 * cannot decode (an unknown `encoding`, broken JSON bytes) would fail that workflow task, and every
 * retry of it, for good — one bad `temporal workflow signal` would wedge the conversation. Here
 * such a payload decodes to an `UndecodablePayload` marker instead: handlers see a value that
 * fails their schema, log it and ignore it; update validators reject it with a clear message.
 *
 * JSON payloads are converted with the platform's UTF-8 codec (TextEncoder/TextDecoder, which the
 * SDK's workflow sandbox provides from Node) instead of the SDK's JavaScript one: on megabyte
 * payloads that one is up to 8× slower once warm (ASCII, escaped surrogates; about even on CJK) and
 * 100× slower cold (120 ms for the first 400 kB), and a flood of large signals is decoded inside
 * one workflow task, whose length decides whether the server force-closes it (fuzz seed 3; see
 * I1 in test/support/fuzz/invariants.ts). The result is the same value: the fast path takes only
 * valid UTF-8 (the fatal decoder refuses anything else, which goes the SDK's way as before) and
 * keeps a byte order mark as the SDK's decoder does; JSON.stringify writes only well-formed text,
 * which both encoders turn into the same bytes.
 *
 * Loaded in the workflow sandbox (bundled with the workflows) and by the worker for activities:
 * it may import only `@temporalio/common`. Encryption and compression belong in payload codecs
 * (runtime/data-converter.ts), which run outside the sandbox on the encoded bytes.
 */
import type { Payload, PayloadConverter } from '@temporalio/common';
import { RawValue, defaultPayloadConverter } from '@temporalio/common';

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

const JSON_ENCODING = 'json/plain';
const encoder = new TextEncoder();
const JSON_ENCODING_BYTES = encoder.encode(JSON_ENCODING);
/** Throws on invalid UTF-8 (those payloads take the SDK's path); keeps a leading BOM like the SDK's decoder. */
const strictDecoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** The JSON text of a valid UTF-8 JSON payload, or undefined for anything the SDK should convert. */
function jsonText(p: Payload): string | undefined {
  const enc = p.metadata?.encoding;
  if (!enc || enc.length !== JSON_ENCODING_BYTES.length || !enc.every((b, i) => b === JSON_ENCODING_BYTES[i]))
    return undefined;
  if (!p.data) return undefined;
  try {
    return strictDecoder.decode(p.data);
  } catch {
    return undefined;
  }
}

/** A JSON payload of `value` where the SDK would make one, built with the platform's encoder. */
function jsonPayload(value: unknown): Payload | undefined {
  // undefined (null payload), bytes (binary), raw payloads and what JSON cannot hold go the SDK's way.
  if (value === undefined || value instanceof Uint8Array || value instanceof RawValue) return undefined;
  if (typeof value === 'function' || typeof value === 'symbol' || typeof value === 'bigint') return undefined;
  let json: string | undefined;
  try {
    json = JSON.stringify(value);
  } catch {
    return undefined;
  }
  if (json === undefined) return undefined;
  return { metadata: { encoding: JSON_ENCODING_BYTES }, data: encoder.encode(json) };
}

function marker(payload: Payload, err: unknown): UndecodablePayload {
  return {
    [UNDECODABLE]: true,
    encoding: encodingOf(payload),
    reason: (err instanceof Error ? err.message : String(err)).slice(0, 300),
  };
}

export const payloadConverter: PayloadConverter = {
  toPayload(value) {
    return jsonPayload(value) ?? defaultPayloadConverter.toPayload(value);
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
    const text = jsonText(payload);
    try {
      return text === undefined ? defaultPayloadConverter.fromPayload<T>(payload) : (JSON.parse(text) as T);
    } catch (err) {
      return marker(payload, err) as T;
    }
  },
};
