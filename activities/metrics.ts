/**
 * Herald's own Prometheus metrics (names prefixed `herald_`), recorded by activities through
 * `ActivityDeps.metrics` and served by workers/metrics-server.ts next to the Temporal SDK's.
 * prom-client is the registry: the maintained Node client, with the text format Prometheus reads.
 *
 * Labels are bounded by construction: provider, model and tool names are sanitised and capped in
 * number (past the cap a new value counts as `other`); no session, turn or call ids ever become a
 * label. Fleet-wide gauges (approvals waiting, open conversations) are read from Postgres at scrape
 * time, so every worker reports the same value (a dashboard takes `max`), and a request recorded
 * by one worker and answered on another never skews them.
 */
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { Db } from '../store/db.js';

export type ModelOutcome = 'ok' | 'error' | 'cancelled';
export type ToolOutcome = 'ok' | 'error' | 'cancelled' | 'refused';
/** `fallback`: the summariser failed and a mechanical summary was used; `skipped`: nothing worth compressing. */
export type CompressionOutcome = 'compressed' | 'fallback' | 'skipped' | 'error' | 'cancelled';
/** What the sandbox stopped: a host off the allowlist, a read-only path, a cap, a policy refusal. */
export type SandboxDenial = 'network' | 'read_only' | 'file_size' | 'processes' | 'memory' | 'policy';

export interface ModelAttempt {
  provider: string;
  model: string;
  outcome: ModelOutcome;
  /** The failure reason (common/error-reasons.ts) of an error. */
  reason?: string | undefined;
  /** Temporal's attempt number: the first attempt of a call counts it as a call. */
  attempt: number;
  durationMs: number;
  /** From the request to the first streamed byte of output (text, reasoning or a tool call). */
  firstTokenMs?: number | undefined;
  tokens?: { input: number; output: number; cacheRead: number; cacheWrite: number; reasoning: number } | undefined;
  costUsd?: number | undefined;
}

export interface HeraldMetrics {
  readonly registry: Registry;
  modelAttempt(a: ModelAttempt): void;
  /** A model call started (in flight until its `modelAttempt`). */
  modelStarted(): () => void;
  toolCall(tool: string, outcome: ToolOutcome, durationMs: number): void;
  toolStarted(): () => void;
  compression(outcome: CompressionOutcome, durationMs: number): void;
  approvalRequested(): void;
  approvalResolved(decision: string): void;
  sandboxDenial(kind: SandboxDenial): void;
}

/** Most distinct values a free-form label (model, provider, tool) takes before new ones count as `other`. */
export const MAX_LABEL_VALUES = 64;
const MAX_LABEL_CHARS = 80;
const DECISIONS = new Set(['once', 'session', 'always', 'deny', 'timeout', 'cancelled', 'auto']);

/** A label value that cannot blow up cardinality: safe characters, short, and one of a bounded set. */
export class BoundedLabel {
  private readonly seen = new Set<string>();
  constructor(private readonly max = MAX_LABEL_VALUES) {}

  of(raw: string | undefined): string {
    const v =
      (raw ?? '')
        .replace(/[^A-Za-z0-9._:/@+-]/g, '_')
        .slice(0, MAX_LABEL_CHARS)
        .toLowerCase() || 'unknown';
    if (this.seen.has(v)) return v;
    if (this.seen.size >= this.max) return 'other';
    this.seen.add(v);
    return v;
  }
}

const SECONDS = (ms: number) => ms / 1000;

export interface MetricsOptions {
  /** Where the fleet-wide gauges are read (none: they are not reported). */
  db?: Db;
  /** Process metrics (memory, CPU, event loop lag) with the `herald_` prefix (default true). */
  processMetrics?: boolean;
}

export function createMetrics(o: MetricsOptions = {}): HeraldMetrics {
  const registry = new Registry();
  if (o.processMetrics !== false) collectDefaultMetrics({ register: registry, prefix: 'herald_' });
  const providers = new BoundedLabel(32);
  const models = new BoundedLabel();
  const tools = new BoundedLabel();
  const reasons = new BoundedLabel(32);
  const registers = [registry];
  const counter = <L extends string>(name: string, help: string, labelNames: readonly L[] = []) =>
    new Counter<L>({ name, help, labelNames, registers });
  const histogram = <L extends string>(name: string, help: string, buckets: number[], labelNames: readonly L[] = []) =>
    new Histogram<L>({ name, help, labelNames, buckets, registers });
  const gauge = (name: string, help: string) => new Gauge({ name, help, registers });

  const modelCalls = counter(
    'herald_model_calls_total',
    'Model calls started (the first attempt of each call; retries are in herald_model_attempts_total).',
    ['provider', 'model'],
  );
  const modelAttempts = counter(
    'herald_model_attempts_total',
    'HTTP attempts of model calls by outcome (ok, error, cancelled).',
    ['provider', 'model', 'outcome'],
  );
  const modelErrors = counter(
    'herald_model_errors_total',
    'Failed model-call attempts by failure reason (rate_limit, timeout, network, context_overflow, ...).',
    ['provider', 'model', 'reason'],
  );
  const modelDuration = histogram(
    'herald_model_call_duration_seconds',
    'Duration of a model-call attempt, from the activity start to the stored reply.',
    [0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 20, 40, 80, 160, 320],
    ['provider', 'model', 'outcome'],
  );
  const firstToken = histogram(
    'herald_model_time_to_first_token_seconds',
    'From the provider request to the first streamed output (text, reasoning or a tool call).',
    [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30],
    ['provider', 'model'],
  );
  const tokens = counter(
    'herald_model_tokens_total',
    'Tokens the providers reported, by kind (input, output, cache_read, cache_write, reasoning).',
    ['provider', 'model', 'kind'],
  );
  const cost = counter(
    'herald_model_cost_usd_total',
    'Estimated cost of model calls in US dollars (from the pricing table; 0 where no price is known).',
    ['provider', 'model'],
  );
  const modelsInFlight = gauge('herald_model_calls_in_flight', 'Model calls running on this worker now.');
  const toolCalls = counter(
    'herald_tool_calls_total',
    'Tool calls by tool and outcome (ok, error, cancelled, refused).',
    ['tool', 'outcome'],
  );
  const toolDuration = histogram(
    'herald_tool_call_duration_seconds',
    'Duration of a tool call.',
    [0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 180, 600],
    ['tool', 'outcome'],
  );
  const toolsInFlight = gauge('herald_tool_calls_in_flight', 'Tool calls running on this worker now.');
  const compressions = counter(
    'herald_compressions_total',
    'Context compressions by outcome (compressed, fallback, skipped, error, cancelled).',
    ['outcome'],
  );
  const compressionDuration = histogram(
    'herald_compression_duration_seconds',
    'Duration of a context compression (summary model call included).',
    [0.1, 0.5, 1, 2, 5, 10, 30, 60, 120],
  );
  const approvals = counter(
    'herald_approvals_total',
    'Dangerous-command approvals by decision (requested, once, session, always, deny, timeout, cancelled).',
    ['decision'],
  );
  const denials = counter(
    'herald_sandbox_denials_total',
    'What the tool sandbox stopped, by kind (network, read_only, file_size, processes, memory, policy).',
    ['kind'],
  );
  const db = o.db;
  new Gauge({
    name: 'herald_approvals_waiting',
    help: 'Approval requests waiting for a person (fleet-wide, read from Postgres).',
    registers,
    async collect() {
      const n = await count(db, 'SELECT count(*)::int AS n FROM approvals WHERE decision IS NULL');
      if (n !== undefined) this.set(n);
    },
  });
  new Gauge({
    name: 'herald_conversations_active',
    help: 'Open conversations (sessions not ended, child agents excluded; fleet-wide, read from Postgres).',
    registers,
    async collect() {
      const n = await count(
        db,
        "SELECT count(*)::int AS n FROM sessions WHERE ended_at IS NULL AND source <> 'subagent'",
      );
      if (n !== undefined) this.set(n);
    },
  });

  const inFlight = (g: Gauge) => () => {
    g.inc();
    let done = false;
    return () => {
      if (done) return;
      done = true;
      g.dec();
    };
  };

  return {
    registry,
    modelAttempt(a) {
      const provider = providers.of(a.provider);
      const model = models.of(a.model);
      if (a.attempt <= 1) modelCalls.inc({ provider, model });
      modelAttempts.inc({ provider, model, outcome: a.outcome });
      if (a.outcome === 'error') modelErrors.inc({ provider, model, reason: reasons.of(a.reason ?? 'unknown') });
      modelDuration.observe({ provider, model, outcome: a.outcome }, SECONDS(a.durationMs));
      if (a.firstTokenMs !== undefined) firstToken.observe({ provider, model }, SECONDS(a.firstTokenMs));
      const t = a.tokens;
      if (t) {
        const kinds: Array<[string, number]> = [
          ['input', t.input],
          ['output', t.output],
          ['cache_read', t.cacheRead],
          ['cache_write', t.cacheWrite],
          ['reasoning', t.reasoning],
        ];
        for (const [kind, n] of kinds) if (n > 0) tokens.inc({ provider, model, kind }, n);
      }
      if (a.costUsd && a.costUsd > 0) cost.inc({ provider, model }, a.costUsd);
    },
    modelStarted: inFlight(modelsInFlight),
    toolCall(tool, outcome, durationMs) {
      const name = tools.of(tool);
      toolCalls.inc({ tool: name, outcome });
      toolDuration.observe({ tool: name, outcome }, SECONDS(durationMs));
    },
    toolStarted: inFlight(toolsInFlight),
    compression(outcome, durationMs) {
      compressions.inc({ outcome });
      compressionDuration.observe(SECONDS(durationMs));
    },
    approvalRequested() {
      approvals.inc({ decision: 'requested' });
    },
    approvalResolved(decision) {
      approvals.inc({ decision: DECISIONS.has(decision) ? decision : 'other' });
    },
    sandboxDenial(kind) {
      denials.inc({ kind });
    },
  };
}

/** A scrape must not hang on a database that is down: the gauge is left out after 2 s. */
async function count(db: Db | undefined, sql: string): Promise<number | undefined> {
  if (!db) return undefined;
  let timer: NodeJS.Timeout | undefined;
  try {
    const r = await Promise.race([
      db.query<{ n: number }>(sql),
      new Promise<undefined>((resolve) => {
        timer = setTimeout(() => resolve(undefined), 2000);
      }),
    ]);
    return r?.rows[0]?.n;
  } catch {
    return undefined;
  } finally {
    clearTimeout(timer);
  }
}

/** Metrics that record into a registry nobody serves (tests, a worker without a metrics port). */
export function unservedMetrics(): HeraldMetrics {
  return createMetrics({ processMetrics: false });
}
