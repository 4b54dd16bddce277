/**
 * The failure converter used when payloads are encrypted (runtime/data-converter.ts): Temporal's
 * default, with `encodeCommonAttributes`, so a failure's message and stack trace travel in an
 * encoded payload — which the codec encrypts — instead of plain proto fields. A model call's
 * failure carries the provider's error text, which can quote the request. Decoding reads both
 * forms, so histories written before encryption was turned on stay readable.
 *
 * Loaded in the workflow sandbox (bundled) and by the worker for activities: only
 * `@temporalio/common`.
 */
import { DefaultFailureConverter } from '@temporalio/common';

export const failureConverter = new DefaultFailureConverter({ encodeCommonAttributes: true });
