/**
 * How Herald's payloads are converted and encoded, in one place for the worker, the workflow
 * bundle, the replayer and the client. The payload converter (workflows/payload-converter.ts)
 * never throws on decode; the payload codec (runtime/codec.ts) encrypts every payload with the
 * configured keys (HERALD_CODEC_KEY / `codec.keyFile`) and must have the same keys on every
 * worker and client. Without keys the codec is still installed: it passes plaintext through and
 * names the missing key when it meets an encrypted payload (instead of "unknown encoding").
 */
import type { DataConverter, PayloadCodec } from '@temporalio/common';
import { DefaultFailureConverter } from '@temporalio/common';
import type { CodecKeyring } from './codec-keys.js';
import type { PayloadDecryptError } from './codec.js';
import { AesGcmCodec } from './codec.js';
import { codeModule } from './paths.js';

export const PAYLOAD_CONVERTER_PATH = codeModule('workflows/payload-converter');
/** With keys: failure messages and stack traces are encoded (and so encrypted) too. */
export const ENCODED_FAILURE_CONVERTER_PATH = codeModule('workflows/failure-converter');

export interface CodecLog {
  error(obj: object, msg: string): void;
}

/** The client's codec: a payload it cannot decrypt is an error with the reason. */
export function clientCodec(keyring: CodecKeyring | undefined): AesGcmCodec {
  return new AesGcmCodec(keyring?.keys ?? [], { source: keyring?.source ?? 'HERALD_CODEC_KEY' });
}

/** The worker's codec: undecryptable payloads for a workflow become markers (runtime/codec.ts says why). */
export function workerCodec(keyring: CodecKeyring | undefined, log?: CodecLog): AesGcmCodec {
  return new AesGcmCodec(keyring?.keys ?? [], {
    source: keyring?.source ?? 'HERALD_CODEC_KEY',
    markWorkflowPayloads: true,
    onMarker: (err: PayloadDecryptError, context) =>
      log?.error(
        { keyId: err.keyId, workflowId: context?.workflowId },
        `${err.message} (the workflow receives it as an undecodable payload)`,
      ),
  });
}

/** Codecs applied to every payload, outermost last. */
export function payloadCodecs(keyring?: CodecKeyring, log?: CodecLog): PayloadCodec[] {
  return [workerCodec(keyring, log)];
}

/** For Worker.create, the replayer and bundleWorkflowCode. */
export function workerDataConverter(keyring?: CodecKeyring, log?: CodecLog): DataConverter {
  return {
    payloadConverterPath: PAYLOAD_CONVERTER_PATH,
    // Activity failures always; the workflow's own when the worker bundles at start (a prebuilt
    // HERALD_WORKFLOW_BUNDLE keeps the converter it was built with).
    ...(keyring?.keys.length ? { failureConverterPath: ENCODED_FAILURE_CONVERTER_PATH } : {}),
    payloadCodecs: payloadCodecs(keyring, log),
  };
}

/** For a Temporal Client (the CLI, HeraldClient, `herald dev`'s own calls). */
export function clientDataConverter(keyring?: CodecKeyring): DataConverter {
  return {
    payloadCodecs: [clientCodec(keyring)],
    ...(keyring?.keys.length
      ? { failureConverter: new DefaultFailureConverter({ encodeCommonAttributes: true }) }
      : {}),
  };
}
