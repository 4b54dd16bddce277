/**
 * `herald usage <session>`: every HTTP attempt of a conversation's model calls, from the usage
 * ledger, and their totals: every request made (retries, fallbacks, failed and cancelled ones, the
 * auxiliary model's compression summaries and `smart` approval assessments), with what the provider
 * said each used and what it was for. The session's usage counts the same attempts, and the turns'
 * `api_calls` the agent loop's (`turn`) among them (common/attempts.ts); this also lists the child
 * agents' (their usage is in the session's).
 */
import type { Db } from '../store/db.js';
import type { LedgerRow, LedgerTotals } from '../store/ledger.js';
import { conversationLedger, conversationOf, conversationTotals, sweepLostAttempts } from '../store/ledger.js';

const MODEL_MAX = 36;

export interface UsageReport {
  /** The conversation asked about; rows of its child agents are labelled with their own id. */
  conversation: string;
  /** The attempts, oldest first; `try` is the attempt's number among all requests for its step. */
  attempts: (LedgerRow & { try: number })[];
  totals: LedgerTotals;
}

export async function usageReport(db: Db, id: string): Promise<UsageReport> {
  // Attempts that died with no later attempt to notice (the last one of a call, a worker gone for good).
  await sweepLostAttempts(db);
  const rows = await conversationLedger(db, id);
  return {
    conversation: await conversationOf(db, id),
    attempts: numberTries(rows),
    totals: await conversationTotals(db, id),
  };
}

/**
 * Number the requests of each step 1, 2, 3… in order, across activity retries, whole-call retries
 * and fallbacks (Temporal's own attempt number starts again at 1 for each of those).
 */
export function numberTries(rows: readonly LedgerRow[]): (LedgerRow & { try: number })[] {
  const seen = new Map<string, number>();
  return rows.map((r) => {
    const key = `${r.conversationId}\u0000${r.turnId}\u0000${r.purpose}\u0000${r.step ?? `seq${r.seq}`}`;
    const n = (seen.get(key) ?? 0) + 1;
    seen.set(key, n);
    return { ...r, try: n };
  });
}

/** `demo:3` → `3` (turn ids are `<conversation>:<turn>`); a child agent's keeps its id: `demo.d1-3-0:1`. */
function turnLabel(r: LedgerRow, conversation: string): string {
  return r.conversationId === conversation && r.turnId.startsWith(`${conversation}:`)
    ? r.turnId.slice(conversation.length + 1)
    : r.turnId;
}

function cut(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

export function formatDuration(ms: number): string {
  return ms < 1000 ? `${ms}ms` : `${(ms / 1000).toFixed(1)}s`;
}

export function formatCost(usd: number): string {
  return `$${usd.toFixed(4)}`;
}

function formatBytes(n: number): string {
  return n < 1024 ? `${n} B` : n < 1024 * 1024 ? `${(n / 1024).toFixed(1)} kB` : `${(n / 1024 / 1024).toFixed(1)} MB`;
}

function outcomeLabel(r: LedgerRow): string {
  if (r.outcome === 'error') return `failed (${r.errorType ?? 'unknown'})`;
  if (r.outcome === 'started') return 'running';
  if (r.outcome !== 'lost') return r.outcome;
  const sent = r.requestBytes === null ? '' : `${formatBytes(r.requestBytes)} `;
  return `lost (worker died; ${sent}sent at ${r.createdAt.toISOString().slice(11, 19)}Z)`;
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

export function totalsLine(t: LedgerTotals): string {
  const kinds =
    [
      `${t.ok} ok`,
      `${t.failed} failed`,
      `${t.cancelled} cancelled`,
      ...(t.lost ? [`${t.lost} lost`] : []),
      ...(t.inFlight ? [`${t.inFlight} running`] : []),
    ].join(', ') + (t.auxiliary ? `; ${t.auxiliary} auxiliary` : '');
  const cached = t.cacheReadTokens + t.cacheWriteTokens;
  return (
    `total: ${plural(t.attempts, 'HTTP attempt')} (${kinds}) · ` +
    `${t.inputTokens} input + ${t.outputTokens} output${cached ? ` + ${cached} cached` : ''} tokens · ${formatCost(t.costUsd)}`
  );
}

export function renderUsage(report: UsageReport): string {
  const { attempts, totals } = report;
  if (!attempts.length) return `(no model calls recorded for ${report.conversation})`;
  const header = [
    'TURN',
    'PURPOSE',
    'STEP',
    'ATTEMPT',
    'PROVIDER/MODEL',
    'OUTCOME',
    'INPUT',
    'OUTPUT',
    'CACHED',
    'COST',
    'TIME',
  ];
  const right = new Set([0, 2, 3, 6, 7, 8, 9, 10]);
  const cells = attempts.map((r) => [
    turnLabel(r, report.conversation),
    r.purpose,
    r.step === null ? '-' : String(r.step),
    String(r.try),
    cut(`${r.provider}/${r.model}`, MODEL_MAX),
    outcomeLabel(r),
    String(r.inputTokens),
    String(r.outputTokens),
    String(r.cacheReadTokens + r.cacheWriteTokens),
    formatCost(r.costUsd),
    formatDuration(r.durationMs),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i]!.length)));
  const line = (c: string[]) =>
    c
      .map((v, i) => (right.has(i) ? v.padStart(widths[i]!) : v.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  const shown =
    totals.attempts > attempts.length ? [`(the newest ${attempts.length} of ${totals.attempts} attempts)`] : [];
  return [line(header), ...cells.map(line), ...shown, totalsLine(totals)].join('\n');
}
