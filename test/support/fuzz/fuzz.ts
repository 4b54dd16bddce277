/**
 * One fuzz case end to end: a fresh stack (own database, task queue, worker and fake model), the
 * scenario of a seed, the invariants, and cleanup. Also shrinking: the smallest subset of a failing
 * case's operations that still breaks the same invariant.
 */
import { setMaxListeners } from 'node:events';
import type { TestStack } from '../stack.js';
import { createTestStack } from '../stack.js';
import type { Facts, Violation } from './invariants.js';
import { checkInvariants, formatReport } from './invariants.js';
import type { GenerateOptions, Scenario } from './ops.js';
import { generate } from './ops.js';
import type { RunOptions, RunRecord } from './runner.js';
import { FUZZ_STACK, runScenario } from './runner.js';

// Each case's stack adds its own exit listeners; many cases in one process are expected.
process.setMaxListeners(Math.max(process.getMaxListeners(), 100));

export interface CaseResult {
  seed: number;
  scenario: Scenario;
  record: RunRecord;
  violations: Violation[];
  facts: Facts;
  report: string;
  ms: number;
}

export interface CaseOptions extends RunOptions, GenerateOptions {
  /** Reuse a stack (its worker must be running); by default each case gets its own. */
  stack?: TestStack;
}

export async function fuzzCase(seed: number, o: CaseOptions = {}): Promise<CaseResult> {
  const t0 = Date.now();
  const scenario = generate(seed, o);
  const stack = o.stack ?? (await createTestStack(FUZZ_STACK));
  const abort = new AbortController();
  setMaxListeners(10_000, abort.signal);
  try {
    const record = await runScenario(stack, scenario, { ...o, abort: abort.signal });
    const { violations, facts } = await checkInvariants(stack, record);
    abort.abort();
    await cleanup(stack, record);
    return {
      seed,
      scenario,
      record,
      violations,
      facts,
      report: formatReport(record, violations, facts),
      ms: Date.now() - t0,
    };
  } finally {
    abort.abort();
    if (!o.stack) await stack.close();
  }
}

/** Terminate what is still running, so nothing outlives the case on the shared Temporal server. */
async function cleanup(stack: TestStack, rec: RunRecord): Promise<void> {
  for (const id of [rec.workflowId, ...rec.side.map((s) => s.workflowId)]) {
    const h = stack.temporal.workflow.getHandle(id);
    try {
      if ((await h.describe()).status.name === 'RUNNING') await h.terminate('fuzz case finished');
    } catch {
      // never started, or already gone
    }
  }
}

/**
 * Delta debugging over the operation indices: keep removing chunks while the case still shows a
 * violation of the same invariant as `target` (default: the first one). Each try is a full run.
 */
export async function shrink(
  seed: number,
  o: CaseOptions & { target?: Violation; onTry?: (ops: number[], kept: boolean) => void } = {},
): Promise<{ ops: number[]; result: CaseResult } | undefined> {
  const full = await fuzzCase(seed, o);
  const target = o.target ?? full.violations[0];
  if (!target) return undefined;
  const stillFails = (r: CaseResult) => r.violations.some((x) => x.invariant === target.invariant);
  let ops = full.record.ops.map((r) => r.i);
  let best = full;
  let chunk = Math.ceil(ops.length / 2);
  while (chunk >= 1) {
    let removed = false;
    for (let start = 0; start < ops.length; start += chunk) {
      const candidate = [...ops.slice(0, start), ...ops.slice(start + chunk)];
      if (!candidate.length) continue;
      const r = await fuzzCase(seed, { ...o, only: candidate });
      const kept = stillFails(r);
      o.onTry?.(candidate, kept);
      if (kept) {
        ops = candidate;
        best = r;
        removed = true;
        start -= chunk;
      }
    }
    if (!removed) chunk = Math.floor(chunk / 2);
  }
  return { ops, result: best };
}
