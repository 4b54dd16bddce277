/**
 * The config-file schemas the conversation workflow also carries in its state (workflows/state.ts
 * parses the carried state with them, so state carried before a field existed gets its default).
 * A module of its own, small and pure, because workflow code imports it: every cached
 * conversation evaluates the workflow bundle's modules again in its own context, and importing
 * the whole config schema (providers, MCP servers, sandbox, …) from the workflow cost ≈0.4 MB per
 * cached conversation (docs/capacity.md). shared/config-schema.ts builds on these.
 */
import { z } from 'zod';
import { DEFAULT_DELEGATION, DELEGATION_MODES } from './delegation.js';
import { DEFAULT_LOOP_GUARD } from './loop-guard.js';
import { API_MODES, PROVIDER_NAMES } from './providers.js';

export const envName = z.string().regex(/^[A-Z_][A-Z0-9_]*$/, 'an environment variable name');

export const modelChoiceSchema = z
  .object({
    provider: z.enum(PROVIDER_NAMES),
    model: z.string().min(1),
    baseUrl: z.string().url().optional(),
    apiMode: z.enum(API_MODES).optional(),
    apiKeyEnv: envName.optional(),
  })
  .strict();

/** `tools.loopGuard` (also the carried state's copy: a state carried before it gets the defaults). */
export const loopGuardSchema = z
  .object({
    enabled: z.boolean().default(DEFAULT_LOOP_GUARD.enabled),
    maxRepeats: z.number().int().min(1).max(50).default(DEFAULT_LOOP_GUARD.maxRepeats),
    noProgressCalls: z.number().int().min(2).max(200).default(DEFAULT_LOOP_GUARD.noProgressCalls),
  })
  .strict()
  .default({ ...DEFAULT_LOOP_GUARD });

/** `delegation`: child agents run by `delegate_task` (docs/delegation.md). */
export const delegationSettingsSchema = z
  .object({
    mode: z.enum(DELEGATION_MODES).default(DEFAULT_DELEGATION.mode),
    maxIterations: z.number().int().min(1).default(DEFAULT_DELEGATION.maxIterations),
    maxConcurrentChildren: z.number().int().min(1).max(16).default(DEFAULT_DELEGATION.maxConcurrentChildren),
    maxDepth: z.number().int().min(1).max(5).default(DEFAULT_DELEGATION.maxDepth),
    autoApprove: z.boolean().default(DEFAULT_DELEGATION.autoApprove),
    askPerson: z.boolean().default(DEFAULT_DELEGATION.askPerson),
    maxSummaryChars: z.number().int().min(1000).default(DEFAULT_DELEGATION.maxSummaryChars),
    childTimeoutSeconds: z.number().int().min(1).default(DEFAULT_DELEGATION.childTimeoutSeconds),
    /** The children's model (default: the parent's). */
    model: modelChoiceSchema.optional(),
  })
  .strict()
  .default({ ...DEFAULT_DELEGATION });
