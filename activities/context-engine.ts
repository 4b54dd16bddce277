/**
 * The pluggable context engine (docs/long-conversations.md: the compressor can be replaced). An engine
 * turns a session's transcript into a shorter one; the compression activity does the rest (the
 * new session, lineage, system prompt, events). The default engine is Hermes' algorithm: prune old
 * tool results, keep the head and the tail verbatim, summarise the middle with the auxiliary model
 * (updating an earlier summary), and fall back to a mechanical summary when no model can.
 * A config file can name another engine module: `compression: { engine: ./my-engine.mjs }`.
 */
import { isAbsolute, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { CompressionReason } from '../common/activity-types.js';
import type { PlannedMessage } from '../shared/compression.js';
import {
  fallbackSummary,
  planCompression,
  pruneToolResults,
  truncateToolResults,
  redactSecrets,
  summaryInput,
  summaryPrompt,
  summaryRole,
  wrapSummary,
} from '../shared/compression.js';
import type { CompressionSettings } from '../common/context-window.js';
import { tailMessages, tailTokens } from '../common/context-window.js';
import type { ChatMessage } from '../common/messages.js';
import type { TodoItem } from '../common/todos.js';
import { todosAfterCompression } from '../common/todos.js';

export interface EngineInput {
  /** The live transcript with token estimates. */
  transcript: PlannedMessage[];
  /** The model's context window (tokens). */
  window: number;
  reason: CompressionReason;
  focus?: string | undefined;
  /** The conversation's first compression (the default engine then keeps the first messages). */
  firstCompression: boolean;
  todos: TodoItem[];
  settings: CompressionSettings;
  /** Ask the auxiliary model (the main one if that fails); throws when neither can answer. */
  summarise(prompt: string, input: string, maxTokens: number): Promise<string>;
  log: { warn(obj: object, msg: string): void };
}

export interface EngineOutput {
  messages: ChatMessage[];
  /** The summary was produced without a model. */
  fallbackSummary: boolean;
}

export interface ContextEngine {
  name: string;
  /** The shorter transcript, or undefined when there is nothing worth compressing. */
  compress(input: EngineInput): Promise<EngineOutput | undefined>;
}

const strip = (ms: PlannedMessage[]): ChatMessage[] => ms.map(({ seq: _s, tokens: _t, ...m }) => m);

export const defaultEngine: ContextEngine = {
  name: 'default',
  async compress(input) {
    const { transcript, window, settings } = input;
    // After an overflow, or when the user asks, the transcript must shrink for sure: the verbatim tail
    // is at most a quarter of its messages.
    const tailBudget =
      input.reason === 'overflow' || input.reason === 'manual'
        ? Math.min(tailTokens(window, settings), Math.floor(transcript.reduce((n, m) => n + m.tokens, 0) / 4))
        : tailTokens(window, settings);
    const plan = planCompression(transcript, {
      protectFirst: input.firstCompression ? settings.protectFirst : 0,
      tailTokens: tailBudget,
      tailMessages: tailMessages(settings),
    });
    if (plan.middle.length === 0 && !plan.previousSummary) {
      // Nothing to summarise (a question and a few big tool results): cut the big results instead.
      const cut = truncateToolResults(transcript, tailBudget);
      return cut ? { messages: strip(cut), fallbackSummary: false } : undefined;
    }

    // 1. Old tool results become one line each (no model call): that is what the summariser reads.
    const pruned = pruneToolResults(plan.middle);
    // 2. The summary: written by a model, or mechanically when none can (and it says so).
    const maxTokens = Math.max(2000, Math.min(Math.floor(window * 0.05), 12_000));
    let text: string;
    let fallback = false;
    try {
      text = await input.summarise(
        summaryPrompt(plan.previousSummary, input.focus),
        summaryInput(plan.previousSummary, pruned),
        maxTokens,
      );
    } catch (err) {
      input.log.warn({ err: String(err) }, 'summary call failed; using a mechanical summary');
      text = fallbackSummary(plan.previousSummary, pruned);
      fallback = true;
    }
    const todoNote = todosAfterCompression(input.todos);
    const summary: ChatMessage = {
      role: summaryRole(plan.head.at(-1)),
      content:
        wrapSummary(redactSecrets(text), plan.middle.length + (plan.previousSummary ? 1 : 0)) +
        (todoNote ? `\n\n${todoNote}` : ''),
    };
    return { messages: [...strip(plan.head), summary, ...strip(plan.tail)], fallbackSummary: fallback };
  },
};

/** The engine a config names: `default`, or a module exporting a ContextEngine (default export). */
export async function loadEngine(spec: string, base: string): Promise<ContextEngine> {
  if (spec === 'default') return defaultEngine;
  const file = isAbsolute(spec) ? spec : resolve(base, spec);
  const mod = (await import(pathToFileURL(file).href)) as { default?: ContextEngine };
  const engine = mod.default;
  if (!engine || typeof engine.compress !== 'function')
    throw new Error(`context engine ${file} must export a default object with compress()`);
  return engine;
}
