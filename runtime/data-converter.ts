/**
 * How Herald's payloads are converted and encoded, in one place for the worker, the workflow
 * bundle, the replayer and the client. The payload converter (workflows/payload-converter.ts)
 * never throws on decode; `payloadCodecs` is the seam for encrypting or compressing payloads at
 * rest in Temporal (empty today: codecs must be the same on every worker and client).
 */
import { fileURLToPath } from 'node:url';
import type { DataConverter, PayloadCodec } from '@temporalio/common';

export const PAYLOAD_CONVERTER_PATH = fileURLToPath(new URL('../workflows/payload-converter.ts', import.meta.url));

/** Codecs applied to every payload, outermost last. None yet. */
export function payloadCodecs(): PayloadCodec[] {
  return [];
}

/** For Worker.create and bundleWorkflowCode. */
export function workerDataConverter(): DataConverter {
  return { payloadConverterPath: PAYLOAD_CONVERTER_PATH, payloadCodecs: payloadCodecs() };
}
