/**
 * Iteration budget arithmetic (docs/providers.md). Each model call consumes one iteration; pressure
 * warnings ride on the request only (never stored).
 */

export const DEFAULT_MAX_ITERATIONS = 90;

/** The warning to attach to a request for call `iteration` of `max`, if any. */
export function budgetWarning(iteration: number, max: number): string | undefined {
  if (max < 4) return undefined;
  const left = max - iteration;
  if (iteration >= Math.ceil(max * 0.9)) {
    return `[BUDGET: only ${left} model call${left === 1 ? '' : 's'} left in this turn. Give your final answer now.]`;
  }
  if (iteration >= Math.ceil(max * 0.7)) {
    return `[BUDGET: iteration ${iteration} of ${max}. Start consolidating your work toward a final answer.]`;
  }
  return undefined;
}

/**
 * The request-only note for the one tool-less call made once the budget is spent, said so that a
 * small model does not write a tool call as text: the tools are gone, and only prose is an answer.
 */
export const BUDGET_FINAL_NOTE =
  '[BUDGET EXHAUSTED: you have used every model call of this turn. Tools are no longer available: no tool will run, ' +
  'and a tool call written as text (JSON or tags) is not an answer. Reply in plain prose only: summarise what you ' +
  'did and found, what is left, and how to continue.]';
