/** The chaos run's printed report: faults as injected, each conversation's verdict, totals and time. */
import type { FaultRecord } from './faults.js';
import type { Verdict } from './invariants.js';
import type { WorkerEvent } from './workers.js';

export interface ReportInput {
  title: string;
  faults: FaultRecord[];
  workerEvents: WorkerEvent[];
  verdicts: Verdict[];
  /** Problems of the run itself (a fault that could not be injected, a broken fault-free run). */
  harness: string[];
  clientErrors: Map<string, number>;
  modelRequests: { baseline: number; chaos: number };
  /** Every run replayed (its failures are also among `harness`). */
  replay: { runs: number; failures: string[] };
  phases: { setupMs: number; baselineMs: number; chaosMs: number; checkMs: number; wallMs: number };
  load: string;
}

const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const pct = (xs: number[], p: number) => {
  if (!xs.length) return 0;
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
};

export function formatReport(r: ReportInput): { text: string; ok: boolean } {
  const lines: string[] = [r.title, ''];
  lines.push(`Faults injected (${r.faults.length}):`);
  for (const f of r.faults)
    lines.push(
      `  ${s(f.at).padStart(8)}  ${f.kind.padEnd(17)} ${f.detail}; recovered in ${s(f.ms)}${f.error ? `  FAILED: ${f.error}` : ''}`,
    );
  const byKind = new Map<string, number>();
  for (const f of r.faults) byKind.set(f.kind, (byKind.get(f.kind) ?? 0) + 1);
  lines.push(`  by kind: ${[...byKind].map(([k, n]) => `${k} ${n}`).join(', ') || 'none'}`);
  const count = (what: WorkerEvent['what']) => r.workerEvents.filter((e) => e.what === what).length;
  lines.push(
    `Worker processes: ${count('killed')} killed, ${count('died')} died on their own, ${count('start-failed')} failed to start (a server was down), ${count('started')} started`,
  );
  for (const e of r.workerEvents.filter((x) => x.what === 'died'))
    lines.push(`  ${s(e.at)} worker ${e.worker} (pid ${e.pid}) died: ${e.detail ?? ''}`);

  lines.push('', `Conversations (${r.verdicts.length}):`);
  for (const v of r.verdicts) {
    const h = v.history;
    const facts = [
      `${v.turnMs.length} turns`,
      `slowest ${s(Math.max(0, ...v.turnMs))}`,
      v.reRuns
        ? `${v.reRuns} marked re-run${v.reRuns > 1 ? 's' : ''}${v.reRunsDiffering ? ` (${v.reRunsDiffering} with another result)` : ''}`
        : '',
      v.resends ? `${v.resends} resend${v.resends > 1 ? 's' : ''}` : '',
      h && h.runs > 1 ? `${h.runs} runs` : '',
      h?.workflowTaskTimeouts ? `${h.workflowTaskTimeouts} task timeouts` : '',
      h && h.maxAttempt.attempt > 1 ? `max attempt ${h.maxAttempt.attempt} (${h.maxAttempt.activity})` : '',
    ].filter(Boolean);
    lines.push(`  ${v.sessionId.padEnd(10)} ${v.violations.length ? 'FAILED' : 'ok    '} ${facts.join(', ')}`);
    for (const x of v.violations) lines.push(`      ${x}`);
  }

  const ok = r.verdicts.filter((v) => !v.violations.length).length;
  const sum = (f: (v: Verdict) => number) => r.verdicts.reduce((n, v) => n + f(v), 0);
  const turnMs = r.verdicts.flatMap((v) => v.turnMs);
  const worst = r.verdicts.reduce<Verdict | undefined>(
    (w, v) => ((v.history?.maxAttempt.attempt ?? 0) > (w?.history?.maxAttempt.attempt ?? 0) ? v : w),
    undefined,
  );
  const retried = new Map<string, number>();
  for (const v of r.verdicts)
    for (const [k, n] of Object.entries(v.history?.retriedActivities ?? {})) retried.set(k, (retried.get(k) ?? 0) + n);
  lines.push('', 'Totals:');
  lines.push(`  conversations ok: ${ok} of ${r.verdicts.length}; turns answered: ${turnMs.length}`);
  lines.push(
    `  tool re-runs marked: ${sum((v) => v.reRuns)} (${sum((v) => v.reRunsDiffering)} with a result other than the fault-free run's)`,
  );
  lines.push(
    `  workflow task failures: ${sum((v) => v.history?.workflowTaskFailures.length ?? 0)}; workflow task timeouts: ${sum((v) => v.history?.workflowTaskTimeouts ?? 0)}; runs (continue-as-new): ${sum((v) => v.history?.runs ?? 0)}`,
  );
  lines.push(
    `  activities retried: ${[...retried].map(([k, n]) => `${k} ${n}`).join(', ') || 'none'}; highest attempt: ${worst?.history ? `${worst.history.maxAttempt.attempt} (${worst.history.maxAttempt.activity}, ${worst.sessionId})` : '1'}`,
  );
  const causes = new Map<string, number>();
  for (const v of r.verdicts)
    for (const [k, n] of Object.entries(v.history?.retryCauses ?? {})) causes.set(k, (causes.get(k) ?? 0) + n);
  for (const [k, n] of [...causes].sort((a, b) => b[1] - a[1]).slice(0, 8)) lines.push(`    ${n}× after ${k}`);
  lines.push(
    `  client resends (same message id): ${sum((v) => v.resends)}${
      r.clientErrors.size
        ? `, after: ${[...r.clientErrors]
            .sort((a, b) => b[1] - a[1])
            .slice(0, 5)
            .map(([e, n]) => `${n}× ${e}`)
            .join('; ')}`
        : ''
    }`,
  );
  lines.push(`  model requests: ${r.modelRequests.baseline} fault-free, ${r.modelRequests.chaos} under faults`);
  lines.push(`  runs replayed: ${r.replay.runs}, ${r.replay.failures.length} nondeterministic`);
  lines.push(
    `  turn time under faults: p50 ${s(pct(turnMs, 50))}, p95 ${s(pct(turnMs, 95))}, max ${s(Math.max(0, ...turnMs))}`,
  );
  const p = r.phases;
  lines.push(
    `  wall time ${s(p.wallMs)}: setup ${s(p.setupMs)}, fault-free run ${s(p.baselineMs)}, run under faults ${s(p.chaosMs)}, checks ${s(p.checkMs)} (${r.load})`,
  );
  for (const h of r.harness) lines.push(`  HARNESS: ${h}`);
  const pass = ok === r.verdicts.length && r.verdicts.length > 0 && !r.harness.length;
  lines.push('', pass ? 'PASS' : 'FAIL');
  return { text: lines.join('\n'), ok: pass };
}
