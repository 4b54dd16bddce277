/**
 * Every HTTP attempt counts: a turn's `api_calls`, its usage and the session totals are
 * the usage ledger's — failed and cancelled attempts included, with what the provider reported for
 * them (none reported: a call with zero tokens). The ledger (store/ledger.ts) is the
 * source of truth; the activities that already report to the workflow (a model call's result, its
 * failure's details, `finishTurn`) carry the turn's ledger totals, and the workflow adds what a
 * report holds beyond what it counted. Totals are cumulative, so a report that comes twice, or one
 * that was missed and is caught up by the next, never counts an attempt twice.
 */
import type { TurnResult } from './contract.js';
import type { Usage } from './messages.js';
import { addUsage, emptyUsage, roundCost } from './messages.js';

/** Sums over one turn's model-call attempts in the ledger (its own conversation: child agents report their own). */
export interface TurnAttempts {
  attempts: number;
  usage: Usage;
}

export function noAttempts(): TurnAttempts {
  return { attempts: 0, usage: emptyUsage() };
}

const TOKEN_FIELDS = [
  'input_tokens',
  'output_tokens',
  'cache_read_tokens',
  'cache_write_tokens',
  'reasoning_tokens',
] as const satisfies readonly (keyof Usage)[];

/** Usage from its token counts: the total is input + output + cache reads + cache writes, as priced. */
export function usageOf(t: Omit<Usage, 'total_tokens'>): Usage {
  return {
    input_tokens: t.input_tokens,
    output_tokens: t.output_tokens,
    cache_read_tokens: t.cache_read_tokens,
    cache_write_tokens: t.cache_write_tokens,
    reasoning_tokens: t.reasoning_tokens,
    total_tokens: t.input_tokens + t.output_tokens + t.cache_read_tokens + t.cache_write_tokens,
    cost_usd: roundCost(t.cost_usd),
  };
}

/**
 * What `reported` holds beyond `counted` (each field's excess, never negative), or undefined when
 * it holds nothing new. A report never lowers a count: an attempt once counted stays counted.
 */
export function attemptsBeyond(counted: TurnAttempts, reported: TurnAttempts): TurnAttempts | undefined {
  const over = (a: number, b: number) => Math.max(0, b - a);
  const usage = usageOf({
    input_tokens: over(counted.usage.input_tokens, reported.usage.input_tokens),
    output_tokens: over(counted.usage.output_tokens, reported.usage.output_tokens),
    cache_read_tokens: over(counted.usage.cache_read_tokens, reported.usage.cache_read_tokens),
    cache_write_tokens: over(counted.usage.cache_write_tokens, reported.usage.cache_write_tokens),
    reasoning_tokens: over(counted.usage.reasoning_tokens, reported.usage.reasoning_tokens),
    cost_usd: over(counted.usage.cost_usd, reported.usage.cost_usd),
  });
  const attempts = over(counted.attempts, reported.attempts);
  const any = attempts > 0 || usage.cost_usd > 0 || TOKEN_FIELDS.some((k) => usage[k] > 0);
  return any ? { attempts, usage } : undefined;
}

export function addAttempts(a: TurnAttempts, b: TurnAttempts): TurnAttempts {
  return { attempts: a.attempts + b.attempts, usage: addUsage(a.usage, b.usage) };
}

const MAX_COUNT = 1e15;
const isCount = (x: unknown): x is number => typeof x === 'number' && Number.isFinite(x) && x >= 0 && x <= MAX_COUNT;

/**
 * A report read from an activity's result or failure details: counted only when well formed (a
 * malformed one is ignored — the next report, or `finishTurn`'s, carries the same totals).
 */
export function asTurnAttempts(x: unknown): TurnAttempts | undefined {
  if (typeof x !== 'object' || x === null) return undefined;
  const { attempts, usage } = x as { attempts?: unknown; usage?: unknown };
  if (!isCount(attempts) || !Number.isInteger(attempts) || typeof usage !== 'object' || usage === null)
    return undefined;
  const u = usage as Record<string, unknown>;
  if (!TOKEN_FIELDS.every((k) => isCount(u[k])) || !isCount(u.cost_usd)) return undefined;
  return { attempts, usage: usageOf(u as unknown as Usage) };
}

/**
 * A turn's result with attempts that only its closing found in the ledger (a call whose failure
 * carried no report, e.g. a timeout): `finishTurn` stores this, and the workflow returns the same.
 */
export function withLateAttempts(result: TurnResult, late: TurnAttempts): TurnResult {
  const session = addUsage(result.usage.session, late.usage);
  return {
    ...result,
    api_calls: result.api_calls + late.attempts,
    usage: { turn: addUsage(result.usage.turn, late.usage), session },
    estimated_cost_usd: session.cost_usd,
  };
}

/** What is left of the session caps when a model call starts (a field is absent when its cap is). */
export interface SpendLimit {
  costUsd?: number;
  tokens?: number;
}

/** The failure type of a model call whose retry would go past a session cap. */
export const SPEND_LIMIT_REACHED = 'session_budget_exceeded';

/** Which cap `spent` reaches, if any: the retry that would spend more is not made. */
export function capReached(spent: Usage, limit: SpendLimit): 'cost' | 'token' | undefined {
  if (limit.costUsd !== undefined && spent.cost_usd >= limit.costUsd) return 'cost';
  if (limit.tokens !== undefined && spent.total_tokens >= limit.tokens) return 'token';
  return undefined;
}
