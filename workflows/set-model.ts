/**
 * The `setModel` update: the conversation's own model switched in place — same session, same
 * transcript, same workflow. Chosen semantics: it applies at once when no turn runs, otherwise
 * from the next turn (a running turn finishes on the model it started with, so one reply never
 * mixes two models). The worker resolves the request (a validator cannot call activities, so the
 * handler does) and a provider it cannot serve — undeclared endpoint, no key — rejects the update
 * with the worker's reason; nothing changes then.
 */
import { ApplicationFailure, setHandler } from '@temporalio/workflow';
import type { SetModelInput, SetModelResult } from '../common/contract.js';
import { MOVING_RUNS, describeZodError, setModelSchema } from '../common/contract.js';
import type { ProviderRequest } from '../common/providers.js';
import { providerLabel } from '../common/providers.js';
import { endpointKey } from '../common/provider-cooldown.js';
import { store } from './activities.js';
import { setModelUpdate } from './definitions.js';
import type { Run } from './run.js';
import type { ConversationState } from './state.js';

/**
 * What to ask the worker for: another provider, or an endpoint that came from the worker's
 * configuration, is resolved afresh; the same provider on an endpoint the caller pinned keeps it.
 */
export function modelRequest(s: ConversationState, input: SetModelInput): ProviderRequest {
  const current = s.primary;
  if ((input.provider && input.provider !== current.provider) || current.fromWorker)
    return {
      provider: input.provider ?? current.provider,
      model: input.model,
      ...(input.apiMode ? { apiMode: input.apiMode } : {}),
    };
  return {
    provider: current.provider,
    model: input.model,
    apiMode: input.apiMode ?? current.apiMode,
    ...(current.baseUrl ? { baseUrl: current.baseUrl } : {}),
    // A credential pool is the worker's to resolve again; a single key variable stays.
    ...(current.apiKeyEnv && !current.credentialPool?.length ? { apiKeyEnv: current.apiKeyEnv } : {}),
  };
}

export function registerSetModel(run: Run): void {
  const { state } = run;
  setHandler(
    setModelUpdate,
    async (input): Promise<SetModelResult> => {
      run.checkDue();
      const previous = state.primary;
      const r = await store.resolveModel({
        conversationId: state.conversationId,
        sessionId: state.sessionId,
        turnId: run.current?.turnId ?? '',
        request: modelRequest(state, input),
        previous: providerLabel(previous),
      });
      if (!r.ok)
        throw ApplicationFailure.create({
          type: 'InvalidInput',
          message: `setModel: ${r.error}`,
          nonRetryable: true,
        });
      state.primary = r.provider;
      // The new model has not failed: no cooldown keeps the next turn off it.
      if (state.cooldowns) delete state.cooldowns[endpointKey(r.provider)];
      const now = run.current === undefined;
      if (now) {
        state.provider = r.provider;
        state.lastPromptTokens = 0;
      }
      run.refreshDetails();
      return {
        provider: r.provider.provider,
        model: r.provider.model,
        api_mode: r.provider.apiMode,
        applies: now ? 'now' : 'next_turn',
        previous: { provider: previous.provider, model: previous.model },
      };
    },
    {
      validator: (input) => {
        const parsed = setModelSchema.safeParse(input);
        if (!parsed.success) throw new Error(`invalid setModel: ${describeZodError(parsed.error, 'setModel')}`);
        if (run.ended) throw new Error('the conversation has ended');
        if (run.draining()) throw new Error(MOVING_RUNS);
        if (!state.primary.model) throw new Error('the conversation is not prepared yet; try again in a moment');
      },
    },
  );
}
