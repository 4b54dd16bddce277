/**
 * `setModel` from the worker's side: resolve the requested provider and model against this
 * worker's configuration (declared endpoints, key variables, per-model settings), check that the
 * key is there, and note the switch on the session row and in the event stream. A request the
 * worker cannot serve is an answer (`ok: false`), not a failure: nothing would change on retry.
 */
import type { ResolveModelArgs, ResolveModelResult } from '../common/activity-types.js';
import { ProviderResolutionError, providerLabel, resolveProvider } from '../common/providers.js';
import type { ActivityDeps } from './deps.js';
import { EventPublisher } from './events/publisher.js';
import { MissingCredentialError, UnpairedEndpointKeyError, resolveApiKey } from '../model-adapters/clients.js';
import { setSessionModel } from '../store/sessions.js';

export function modelSwitchActivities(deps: ActivityDeps) {
  return {
    async resolveModel(a: ResolveModelArgs): Promise<ResolveModelResult> {
      let provider;
      try {
        provider = resolveProvider(a.request, deps.config.providerDefaults);
        // No endpoint, key variable or API mode asked for: they are the worker's (see ProviderRef).
        const r = a.request;
        if (r.baseUrl === undefined && r.apiKeyEnv === undefined && r.apiMode === undefined)
          provider = { ...provider, fromWorker: true };
        resolveApiKey(provider, deps.env, deps.config.providerDefaults);
      } catch (err) {
        if (err instanceof ProviderResolutionError) return { ok: false, error: `${err.field}: ${err.message}` };
        if (err instanceof MissingCredentialError || err instanceof UnpairedEndpointKeyError)
          return { ok: false, error: err.message };
        throw err;
      }
      await setSessionModel(deps.db, a.sessionId, provider);
      const pub = new EventPublisher(deps.db, a.conversationId, a.turnId, deps.log);
      pub.emit('status', {
        kind: 'model',
        message: `model set to ${providerLabel(provider)} (was ${a.previous})`,
        provider: provider.provider,
        model: provider.model,
      });
      await pub.flush();
      return { ok: true, provider };
    },
  };
}
