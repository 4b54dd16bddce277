/**
 * The Herald config file (YAML, docs/configuration.md), validated by one zod schema. Every number is a
 * default that can be changed here. Environment variables override the file where both exist.
 */
import { z } from 'zod';
import { DEFAULT_APPROVAL_POLICY } from '../common/approval-policy.js';
import { DEFAULT_COMPRESSION } from '../common/context-window.js';
import { BUSY_POLICIES } from '../common/contract.js';
import { DEFAULT_LOOP_GUARD } from '../common/loop-guard.js';
import { API_MODES, PROVIDER_NAMES } from '../common/providers.js';
import { sandboxConfigSchema } from '../common/sandbox-policy.js';
import { checkpointsConfigSchema } from '../common/checkpoints.js';
import { mcpConfigSchema } from './mcp-config.js';
import { workerTuningSchema } from './worker-tuning.js';
import { delegationSettingsSchema, envName, loopGuardSchema, modelChoiceSchema } from '../common/carried-settings.js';

export { loopGuardSchema } from '../common/carried-settings.js';

const pricingSchema = z
  .object({
    /** USD per million prompt tokens not served from cache. */
    input: z.number().min(0),
    /** USD per million output tokens. */
    output: z.number().min(0),
    cacheRead: z.number().min(0).optional(),
    cacheWrite: z.number().min(0).optional(),
  })
  .strict();

/**
 * Sampling temperature (OpenAI's range; Anthropic calls send at most 1). Unset: the provider's own
 * default, except local servers, which get LOCAL_DEFAULT_TEMPERATURE (shared/temperature.ts).
 */
const temperatureSchema = z.number().min(0).max(2);

const providerEntrySchema = z
  .object({
    apiMode: z.enum(API_MODES).optional(),
    baseUrl: z.string().url().optional(),
    /** The environment variable holding the key. */
    apiKeyEnv: envName.optional(),
    /** Several key variables: rotated on a second consecutive rate limit and at once on billing errors. */
    credentialPool: z.array(envName).min(1).optional(),
    /** Seconds a streamed reply may send nothing before the call is abandoned and retried (default: the model section's). */
    streamStallSeconds: z.number().int().min(1).max(3600).optional(),
    /** Sampling temperature of this provider's calls (a model's own setting wins). */
    temperature: temperatureSchema.optional(),
    models: z
      .record(
        z.string(),
        z
          .object({
            contextLength: z.number().int().min(1024).optional(),
            maxOutputTokens: z.number().int().min(1).optional(),
            temperature: temperatureSchema.optional(),
            pricing: pricingSchema.optional(),
          })
          .strict(),
      )
      .optional(),
  })
  .strict();

export const sessionBudgetSchema = z
  .object({
    maxCostUsd: z.number().positive().optional(),
    maxTokens: z.number().int().positive().optional(),
  })
  .strict();

export const configFileSchema = z
  .object({
    model: z
      .object({
        provider: z.enum(PROVIDER_NAMES).optional(),
        name: z.string().min(1).optional(),
        apiMode: z.enum(API_MODES).optional(),
        baseUrl: z.string().url().optional(),
        apiKeyEnv: z
          .string()
          .regex(/^[A-Z_][A-Z0-9_]*$/)
          .optional(),
        contextLength: z.number().int().min(1024).optional(),
        maxOutputTokens: z.number().int().min(1).optional(),
        /** Sampling temperature of every call (a provider's or model's own setting wins). */
        temperature: temperatureSchema.optional(),
        /** Seconds without any bytes from the provider before a call is abandoned. */
        requestTimeoutSeconds: z.number().int().min(1).optional(),
        /** Seconds a streamed reply may make no progress before the call is abandoned as a timeout (default 60; local servers 600); a second stall of one call gives up on that provider for the call. */
        streamStallSeconds: z.number().int().min(1).max(3600).optional(),
        /** Anthropic prompt-cache breakpoint lifetime. */
        promptCacheTtl: z.enum(['5m', '1h']).default('5m'),
      })
      .strict()
      .default({ promptCacheTtl: '5m' }),
    agent: z
      .object({
        maxIterations: z.number().int().min(1).default(90),
        busyPolicy: z.enum(BUSY_POLICIES).default('interrupt'),
        systemMessage: z.string().optional(),
      })
      .strict()
      .default({ maxIterations: 90, busyPolicy: 'interrupt' }),
    tools: z
      .object({
        /** Toolsets enabled when a conversation does not choose. */
        toolsets: z.array(z.string().min(1)).optional(),
        terminal: z
          .object({
            timeoutSeconds: z.number().int().min(1).max(3600).default(180),
            maxOutputChars: z.number().int().min(1000).default(50_000),
          })
          .strict()
          .default({ timeoutSeconds: 180, maxOutputChars: 50_000 }),
        /** Tool-loop guardrails: repeated identical calls get a nudge, then a refusal; no progress ends the turn. */
        loopGuard: loopGuardSchema,
        /**
         * Tool schemas in requests: `full`, `compact` (first-sentence descriptions, no validation-only
         * keywords), or `auto` = compact when full schemas would take more than `compactShare` of the window.
         */
        schemas: z
          .object({
            mode: z.enum(['auto', 'full', 'compact']).default('auto'),
            compactShare: z.number().min(0).max(1).default(0.1),
          })
          .strict()
          .default({ mode: 'auto', compactShare: 0.1 }),
      })
      .strict()
      .default({
        terminal: { timeoutSeconds: 180, maxOutputChars: 50_000 },
        loopGuard: { ...DEFAULT_LOOP_GUARD },
        schemas: { mode: 'auto', compactShare: 0.1 },
      }),
    /** Model name → pricing (USD per million tokens). */
    pricing: z.record(z.string(), pricingSchema).default({}),
    /** Per-provider endpoints, keys, credential pools and per-model limits and prices. */
    providers: z.partialRecord(z.enum(PROVIDER_NAMES), providerEntrySchema).default({}),
    /** The fallback chain used when a conversation does not give its own. */
    fallbackProviders: z.array(modelChoiceSchema).default([]),
    /** The auxiliary model (compression summaries, `smart` approval assessments); defaults to the conversation's model. */
    auxiliary: modelChoiceSchema
      .extend({ fallbackProviders: z.array(modelChoiceSchema).optional() })
      .strict()
      .optional(),
    compression: z
      .object({
        enabled: z.boolean().default(DEFAULT_COMPRESSION.enabled),
        threshold: z.number().min(0.1).max(0.95).default(DEFAULT_COMPRESSION.threshold),
        targetRatio: z.number().min(0.1).max(0.8).default(DEFAULT_COMPRESSION.targetRatio),
        protectFirst: z.number().int().min(0).default(DEFAULT_COMPRESSION.protectFirst),
        protectLast: z.number().int().min(1).default(DEFAULT_COMPRESSION.protectLast),
        hygieneThreshold: z.number().min(0.1).max(1).default(DEFAULT_COMPRESSION.hygieneThreshold),
        /** `default`, or a module (path relative to the config file) whose default export is a ContextEngine. */
        engine: z.string().min(1).default('default'),
      })
      .strict()
      .default({ ...DEFAULT_COMPRESSION, engine: 'default' }),
    /** Backoff between attempts of a model call (jittered exponential; Retry-After wins, capped). */
    retry: z
      .object({
        baseDelaySeconds: z.number().min(0.01).default(2),
        maxDelaySeconds: z.number().min(0.01).default(60),
        maxRetryAfterSeconds: z.number().min(0).default(600),
        /** How long a provider left for an overload, a rate limit or a billing error is skipped before it is tried again. */
        cooldownSeconds: z.number().min(1).max(21_600).default(60),
      })
      .strict()
      .default({ baseDelaySeconds: 2, maxDelaySeconds: 60, maxRetryAfterSeconds: 600, cooldownSeconds: 60 }),
    /** Plugin modules with hooks (paths relative to the config file). */
    hooks: z
      .object({ plugins: z.array(z.string().min(1)).default([]) })
      .strict()
      .default({ plugins: [] }),
    /** Skills (SKILL.md folders): more folders to look in, after `<HERALD_HOME>/skills` (docs/skills.md). */
    skills: z
      .object({
        /** Folders that hold skill folders; relative to the config file, `~/` for the user's home. */
        paths: z.array(z.string().min(1)).max(32).default([]),
      })
      .strict()
      .default({ paths: [] }),
    /** Dangerous-command approvals and clarify questions (docs/command-safety.md). */
    approvals: z
      .object({
        mode: z.enum(['manual', 'off', 'smart']).default('manual'),
        timeoutSeconds: z.number().int().positive().default(300),
        clarifyTimeoutSeconds: z.number().int().positive().default(600),
        /** The turn ends after this many denied (or unanswered) approvals in a row (default 3); 0: never. */
        maxDenialsInARow: z.number().int().min(0).max(100).default(DEFAULT_APPROVAL_POLICY.maxDenialsInARow),
        /** An approval must come from another identity than the one whose message asked for it. */
        separateApprover: z.boolean().default(false),
      })
      .strict()
      .default({
        mode: 'manual',
        timeoutSeconds: 300,
        clarifyTimeoutSeconds: 600,
        maxDenialsInARow: DEFAULT_APPROVAL_POLICY.maxDenialsInARow,
        separateApprover: false,
      }),
    /** Child agents run by `delegate_task` (docs/delegation.md). */
    delegation: delegationSettingsSchema,
    /** Session-wide caps over every model call (retries, compression and child agents included). */
    budget: sessionBudgetSchema.default({}),
    /**
     * Redaction (docs/redaction.md): every environment value is a secret unless its variable is
     * on the benign list or its value has a benign shape. `env`: variables that are secrets
     * whatever their value looks like; `benignEnv`: variables added to the benign list (a name,
     * or a prefix ending in `*`).
     */
    secrets: z
      .object({
        env: z.array(envName).default([]),
        benignEnv: z
          .array(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*\*?$/, 'a variable name, or a prefix ending in *'))
          .max(200)
          .default([]),
      })
      .strict()
      .default({ env: [], benignEnv: [] }),
    /** The OS sandbox every tool process runs in (docs/tool-sandbox.md). */
    sandbox: sandboxConfigSchema.prefault({}),
    /** Workspace snapshots around each turn, for diff, undo, rewind and fork (docs/checkpoints.md). */
    checkpoints: checkpointsConfigSchema,
    mcp: mcpConfigSchema,
    events: z
      .object({ retentionDays: z.number().min(0.01).default(7) })
      .strict()
      .default({ retentionDays: 7 }),
    /**
     * Payload encryption (docs/encryption.md): a file of `id:base64key` pairs, relative to
     * this file; HERALD_CODEC_KEY wins over it. The keys themselves never go in this file.
     */
    codec: z
      .object({ keyFile: z.string().min(1).optional() })
      .strict()
      .default({}),
    /** A worker's capacity: sticky cache, task slots, pollers, Postgres pool (docs/capacity.md). */
    worker: workerTuningSchema,
    /**
     * Folders every conversation's `cwd` must lie in (docs/workspaces.md); `~/` is the worker's
     * home, relative entries are against this file's folder. HERALD_WORKSPACE_ROOTS wins.
     */
    workspaceRoots: z.array(z.string().min(1).max(4096)).min(1).max(64).optional(),
  })
  .strict();

export type ConfigFile = z.infer<typeof configFileSchema>;
export type Pricing = z.infer<typeof pricingSchema>;
