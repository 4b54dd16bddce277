/**
 * Herald's payload codec: AES-256-GCM (node:crypto), so Temporal history holds ciphertext.
 *
 * An encrypted payload is `{ metadata: { encoding: "binary/encrypted", "encryption-key-id": id },
 * data: iv(12) ‖ ciphertext ‖ tag(16) }`; the plaintext is the whole original payload (metadata
 * and data) in protobuf form, as Temporal's samples do, so the converter underneath sees exactly
 * what it wrote. The IV is 96 random bits per payload; the key id and the format version are
 * authenticated (additional data), so a payload cannot be moved to another key id unnoticed.
 *
 * Encoding uses the first key; decoding uses the key the payload names. Payloads that are not
 * encrypted pass through both ways (history written before the codec was turned on stays readable).
 *
 * A payload that cannot be decrypted (a key id this process does not hold, a tampered or truncated
 * payload) is a `PayloadDecryptError` with a message naming the key id and what to do — except on a
 * worker for payloads sent *to* a workflow (start input, signals, updates, queries; serialization
 * context `workflow`), where it becomes an "undecryptable" payload instead. The never-throwing
 * payload converter (workflows/payload-converter.ts) turns that into its `UndecodablePayload`
 * marker: a signal is ignored and counted, an update rejected with the reason, a start fails as
 * invalid input — none wedges the conversation in a failing workflow task. Activity payloads
 * (context `activity`) are written by Herald's own workers; one that cannot be read means this
 * worker lacks a key its peers use (a rotation rolled out in the wrong order), so the workflow task
 * fails with the message and Temporal retries it until the key is deployed — turning it into a
 * marker would make the workflow decide, durably, on garbage.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { Payload, PayloadCodec, SerializationContext } from '@temporalio/common';
import proto from '@temporalio/proto';
import type { CodecKey } from './codec-keys.js';

export const ENCRYPTED_ENCODING = 'binary/encrypted';
export const KEY_ID_METADATA = 'encryption-key-id';
/** What an undecryptable payload becomes on a worker (payload-converter.ts reads its reason). */
export const UNDECRYPTABLE_ENCODING = 'binary/herald-undecryptable';

const IV_BYTES = 12;
const TAG_BYTES = 16;
const AAD_PREFIX = 'herald-codec-v1:';
const PayloadProto = proto.temporal.api.common.v1.Payload;

const utf8 = (s: string) => new TextEncoder().encode(s);
const text = (b: Uint8Array | null | undefined) => (b ? Buffer.from(b).toString('utf8') : '');

export class PayloadDecryptError extends Error {
  constructor(
    message: string,
    readonly keyId: string | undefined,
  ) {
    super(message);
    this.name = 'PayloadDecryptError';
  }
}

export interface CodecOptions {
  /** Where the keys came from, for messages ("HERALD_CODEC_KEY"). */
  source?: string;
  /**
   * Worker mode: payloads for a workflow (context `workflow`) that cannot be decrypted become
   * undecryptable markers instead of errors. `onMarker` hears each (for the worker's log).
   */
  markWorkflowPayloads?: boolean;
  onMarker?: (err: PayloadDecryptError, context: SerializationContext | undefined) => void;
}

export function isEncrypted(p: Payload): boolean {
  return text(p.metadata?.encoding) === ENCRYPTED_ENCODING;
}

export class AesGcmCodec implements PayloadCodec {
  private readonly byId: Map<string, CodecKey>;

  constructor(
    readonly keys: readonly CodecKey[],
    private readonly options: CodecOptions = {},
  ) {
    this.byId = new Map(keys.map((k) => [k.id, k]));
  }

  /** The key id new payloads are encrypted with (none: payloads pass through). */
  get encryptingKeyId(): string | undefined {
    return this.keys[0]?.id;
  }

  encode(payloads: Payload[]): Promise<Payload[]> {
    const first = this.keys[0];
    if (!first) return Promise.resolve(payloads);
    return settle(() => payloads.map((p) => (isEncrypted(p) ? p : seal(p, first))));
  }

  decode(payloads: Payload[], context?: SerializationContext): Promise<Payload[]> {
    return settle(() => payloads.map((p) => this.decodeOne(p, context)));
  }

  private decodeOne(p: Payload, context: SerializationContext | undefined): Payload {
    if (!isEncrypted(p)) return p;
    try {
      return this.open(p);
    } catch (err) {
      if (!(err instanceof PayloadDecryptError)) throw err;
      if (this.options.markWorkflowPayloads && context?.type !== 'activity') {
        this.options.onMarker?.(err, context);
        return undecryptable(err);
      }
      throw err;
    }
  }

  /** Decrypt one payload or throw a PayloadDecryptError that says why and what to do. */
  open(p: Payload): Payload {
    const keyId = text(p.metadata?.[KEY_ID_METADATA]);
    const held = this.keys.map((k) => k.id).join(', ') || 'none';
    const source = this.options.source ?? 'HERALD_CODEC_KEY';
    if (!keyId) throw new PayloadDecryptError('cannot decrypt a payload: it names no encryption key id', undefined);
    const key = this.byId.get(keyId);
    if (!key)
      throw new PayloadDecryptError(
        this.keys.length
          ? `cannot decrypt a payload encrypted with key "${keyId}": ${source} holds ${held}; add that key (after the encrypting one) to read it`
          : `cannot decrypt a payload encrypted with key "${keyId}": no codec key is configured (set HERALD_CODEC_KEY or the config's codec.keyFile)`,
        keyId,
      );
    const data = p.data ?? new Uint8Array();
    if (data.length < IV_BYTES + TAG_BYTES)
      throw new PayloadDecryptError(`cannot decrypt a payload encrypted with key "${keyId}": it is truncated`, keyId);
    let plain: Buffer;
    try {
      const d = createDecipheriv('aes-256-gcm', key.key, data.subarray(0, IV_BYTES));
      d.setAAD(utf8(AAD_PREFIX + keyId));
      d.setAuthTag(data.subarray(data.length - TAG_BYTES));
      plain = Buffer.concat([d.update(data.subarray(IV_BYTES, data.length - TAG_BYTES)), d.final()]);
    } catch {
      throw new PayloadDecryptError(
        `cannot decrypt a payload encrypted with key "${keyId}": authentication failed (the payload was altered, or ${source} holds a different key under that id)`,
        keyId,
      );
    }
    try {
      const inner = PayloadProto.decode(plain);
      return { metadata: inner.metadata ?? {}, data: inner.data ?? new Uint8Array() };
    } catch {
      throw new PayloadDecryptError(
        `cannot decrypt a payload encrypted with key "${keyId}": its content is not a payload`,
        keyId,
      );
    }
  }
}

/** The codec's work is synchronous (node:crypto); its interface is a promise. */
function settle<T>(fn: () => T): Promise<T> {
  try {
    return Promise.resolve(fn());
  } catch (err) {
    return Promise.reject(err instanceof Error ? err : new Error(String(err)));
  }
}

function seal(p: Payload, key: CodecKey): Payload {
  const iv = randomBytes(IV_BYTES);
  const c = createCipheriv('aes-256-gcm', key.key, iv);
  c.setAAD(utf8(AAD_PREFIX + key.id));
  const plain = PayloadProto.encode({ metadata: p.metadata ?? {}, data: p.data ?? new Uint8Array() }).finish();
  const sealed = Buffer.concat([iv, c.update(plain), c.final(), c.getAuthTag()]);
  return {
    metadata: { encoding: utf8(ENCRYPTED_ENCODING), [KEY_ID_METADATA]: utf8(key.id) },
    data: new Uint8Array(sealed),
  };
}

/** The stand-in for a payload a worker cannot decrypt: its data is the reason (bounded). */
function undecryptable(err: PayloadDecryptError): Payload {
  return { metadata: { encoding: utf8(UNDECRYPTABLE_ENCODING) }, data: utf8(err.message.slice(0, 300)) };
}
