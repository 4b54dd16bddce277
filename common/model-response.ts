/**
 * What to do with a model reply that arrived but is not (yet) a usable step (docs/providers.md): tool
 * calls with unknown names or broken JSON, empty replies, text cut off by the output limit,
 * truncated tool calls, an unterminated scratchpad, a content-filter refusal. Pure; the workflow
 * keeps the counters and carries out the step.
 */
import type { InvalidCallProblem } from './tool-batch.js';

export const MAX_INVALID_JSON_RECALLS = 2;
export const MAX_EMPTY_RETRIES = 3;
export const MAX_CONTINUATIONS = 3;
export const MAX_TRUNCATED_TOOL_RECALLS = 3;
export const MAX_SCRATCHPAD_RETRIES = 2;
export const MAX_UNKNOWN_TOOL_STREAK = 3;

/** Sent (request only) after tool results when the model answered with nothing. */
export const EMPTY_AFTER_TOOLS_NUDGE =
  '[You ran tools but replied with nothing. Work through the tool results above and carry on with the task, or give your final answer.]';

/** Stored as a user message after a reply cut off by the output limit. */
export const CONTINUE_PROMPT =
  '[Your previous reply was cut off by the output limit. Continue exactly where you left off, without repeating anything.]';

export interface ResponseFacts {
  finishReason: string;
  text: string;
  toolCalls: Array<{ name: string; problem?: InvalidCallProblem | undefined }>;
  scratchpadUnterminated: boolean;
}

export interface ResponseCounters {
  invalidJson: number;
  emptyRetries: number;
  nudged: boolean;
  continuations: number;
  truncatedToolRecalls: number;
  scratchpadRetries: number;
  unknownToolStreak: number;
  contentFilterFallbackUsed: boolean;
  emptyFallbackUsed: boolean;
}

export function freshCounters(): ResponseCounters {
  return {
    invalidJson: 0,
    emptyRetries: 0,
    nudged: false,
    continuations: 0,
    truncatedToolRecalls: 0,
    scratchpadRetries: 0,
    unknownToolStreak: 0,
    contentFilterFallbackUsed: false,
    emptyFallbackUsed: false,
  };
}

export type NextStep =
  | { kind: 'final' }
  | { kind: 'tools' }
  /** Call again at the same position; the reply is discarded. */
  | { kind: 'recall'; why: string; note?: string; raiseOutputCap?: boolean }
  /** Keep the partial reply, ask the model to continue, call again with a raised cap. */
  | { kind: 'continue_truncated' }
  /** Switch to the next fallback provider and call again at the same position. */
  | { kind: 'fallback'; why: string }
  | { kind: 'end_partial'; message: string }
  | { kind: 'fail'; message: string };

export interface StepContext {
  lastStepWasTools: boolean;
  fallbacksLeft: number;
}

/** Decide the next step and update the counters it consumed. */
export function decideNextStep(r: ResponseFacts, c: ResponseCounters, ctx: StepContext): NextStep {
  const hasCalls = r.toolCalls.length > 0;
  if (!hasCalls && r.finishReason === 'content_filter') {
    if (!c.contentFilterFallbackUsed && ctx.fallbacksLeft > 0) {
      c.contentFilterFallbackUsed = true;
      return { kind: 'fallback', why: 'the provider refused under its content filter' };
    }
    return {
      kind: 'fail',
      message: `content_policy_blocked: the provider refused to answer${r.text ? ` (${r.text.slice(0, 200)})` : ''}`,
    };
  }
  if (r.scratchpadUnterminated) {
    if (c.scratchpadRetries < MAX_SCRATCHPAD_RETRIES) {
      c.scratchpadRetries += 1;
      return { kind: 'recall', why: 'unterminated <REASONING_SCRATCHPAD>' };
    }
    return { kind: 'end_partial', message: 'The model kept leaving its reasoning scratchpad unterminated.' };
  }
  if (hasCalls) {
    const broken = r.toolCalls.filter((t) => t.problem === 'invalid_json');
    if (broken.length && r.finishReason === 'length') {
      if (c.truncatedToolRecalls < MAX_TRUNCATED_TOOL_RECALLS) {
        c.truncatedToolRecalls += 1;
        return { kind: 'recall', why: 'a tool call was cut off by the output limit', raiseOutputCap: true };
      }
      return {
        kind: 'end_partial',
        message: 'The response was truncated in the middle of a tool call, even with a raised output limit.',
      };
    }
    if (broken.length) {
      if (c.invalidJson < MAX_INVALID_JSON_RECALLS) {
        c.invalidJson += 1;
        return { kind: 'recall', why: `invalid JSON arguments for ${broken.map((t) => t.name).join(', ')}` };
      }
      c.invalidJson = 0; // the tools answer with errors the model can correct
    }
    const unknown = r.toolCalls.filter((t) => t.problem === 'unknown_tool');
    c.unknownToolStreak = unknown.length ? c.unknownToolStreak + 1 : 0;
    if (c.unknownToolStreak >= MAX_UNKNOWN_TOOL_STREAK) {
      return {
        kind: 'end_partial',
        message: `The model kept calling tools that do not exist: ${unknown.map((t) => t.name || '(no name)').join(', ')}.`,
      };
    }
    return { kind: 'tools' };
  }
  c.unknownToolStreak = 0;
  if (r.text.trim() === '' && r.finishReason !== 'length') {
    if (ctx.lastStepWasTools && !c.nudged) {
      c.nudged = true;
      return { kind: 'recall', why: 'empty reply after tool results', note: EMPTY_AFTER_TOOLS_NUDGE };
    }
    if (c.emptyRetries < MAX_EMPTY_RETRIES) {
      c.emptyRetries += 1;
      return { kind: 'recall', why: 'empty reply' };
    }
    if (!c.emptyFallbackUsed && ctx.fallbacksLeft > 0) {
      c.emptyFallbackUsed = true;
      c.emptyRetries = 0;
      return { kind: 'fallback', why: 'the model kept returning empty replies' };
    }
    return { kind: 'end_partial', message: 'The model returned an empty response, even after retries.' };
  }
  if (r.finishReason === 'length') {
    if (c.continuations < MAX_CONTINUATIONS) {
      c.continuations += 1;
      return { kind: 'continue_truncated' };
    }
    return { kind: 'end_partial', message: 'The reply was cut off by the output limit, even after continuations.' };
  }
  return { kind: 'final' };
}

/** The output cap for the n-th raised attempt: base·2ⁿ, at most max(32768, base). */
export function raisedOutputCap(base: number | undefined, n: number): number {
  const b = base ?? 4096;
  return Math.min(b * 2 ** n, Math.max(32_768, b));
}
