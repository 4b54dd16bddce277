/**
 * What a client sends, made fit to leave this process: a user's text redacted, a start input and
 * a message checked here, so that a bad one fails with its reason instead of a failed workflow or
 * an update Temporal cannot carry.
 */
import {
  conversationInputSchema,
  describeZodError,
  inputBoundsIssue,
  messagePayloadIssue,
} from '../common/contract.js';
import type { ConversationInput } from '../common/contract.js';
import { redactor } from '../runtime/secrets.js';

type StartOptions = Omit<ConversationInput, 'carried'>;

/**
 * What a user typed is redacted before it leaves this process (docs/redaction.md): the message is
 * in the workflow's input, its summary in Temporal's list, both readable by anyone who can list
 * workflows. The process's redactor knows what this process installed (the CLI: its own
 * environment and config; an in-process worker: the worker's secrets) and the secret shapes.
 */
export function outgoing(text: string): string {
  return redactor().redact(text);
}

export function outgoingStart(input: StartOptions): StartOptions {
  return input.message === undefined ? input : { ...input, message: outgoing(input.message) };
}

export function summaryOf(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > 120 ? `${flat.slice(0, 119)}…` : flat;
}

/** The start input, checked here so a bad one fails with its reason rather than a failed workflow. */
export function checkStart(input: Record<string, unknown>): void {
  const parsed = conversationInputSchema.safeParse(input);
  if (!parsed.success) throw new Error(`invalid conversation input: ${describeZodError(parsed.error)}`);
  const issue = inputBoundsIssue(parsed.data);
  if (issue) throw new Error(`invalid conversation input: ${issue.field}: ${issue.message}`);
}

/**
 * A message Temporal could not carry is refused here: the server admits an update past its 2 MB
 * payload limit, and then no worker can answer it (see common/contract.ts).
 */
export function checkMessage(text: unknown): void {
  // Only what the workflow cannot answer: anything else (too many characters, empty) it refuses
  // itself, with the same reasons, visible in history.
  if (typeof text !== 'string') return;
  const issue = messagePayloadIssue(text);
  if (issue) throw new Error(`message refused: ${issue}`);
}
