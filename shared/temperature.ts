/**
 * Sampling temperature of a model call (docs/providers.md). Resolved by the worker at each call from its own
 * configuration (like the endpoint of a `fromWorker` ref), so it never enters workflow history and a
 * corrected config file applies to running conversations after a worker restart.
 */
import type { ApiMode, ProviderRef } from '../common/providers.js';
import { isLocalEndpoint } from '../common/providers.js';

/**
 * The temperature of calls to a local server (a local preset, or `custom` on a loopback address)
 * when nothing is configured. Local servers sample at their own default (llama.cpp 0.8, Ollama
 * 0.8, LM Studio 0.8, vLLM 1.0). At a low temperature a small model makes the same choice for the same
 * request nearly every time, so a wrong choice repeats verbatim and the loop guard recognises and
 * ends it; at 0.8 it wanders from seed to seed. 0 (greedy) is avoided: a repeat then has no way out
 * but the guard. (The temperature did not decide whether the model answered; the prompt's wording
 * did. The runs are in docs/decisions/small-models.md, "Measurements the code rests on";
 * `npm run test:real-model` with `model.temperature` in REAL_MODEL_CONFIG measures another value.)
 * Hosted providers keep their own defaults: nothing is sent for them.
 */
export const LOCAL_DEFAULT_TEMPERATURE = 0.2;

/** The config-file settings temperature is read from (a subset of the parsed config file). */
export interface TemperatureSettings {
  model: { temperature?: number | undefined };
  providers: Partial<
    Record<
      string,
      { temperature?: number | undefined; models?: Record<string, { temperature?: number | undefined }> | undefined }
    >
  >;
}

/**
 * A call's temperature, strongest first: `providers.<name>.models.<model>.temperature`,
 * `providers.<name>.temperature`, `model.temperature`, the local-server default; undefined (the
 * provider's own default) otherwise.
 */
export function temperatureFor(
  file: TemperatureSettings,
  ref: Pick<ProviderRef, 'provider' | 'model' | 'baseUrl'>,
): number | undefined {
  const provider = file.providers[ref.provider];
  return (
    provider?.models?.[ref.model]?.temperature ??
    provider?.temperature ??
    file.model.temperature ??
    (isLocalEndpoint(ref) ? LOCAL_DEFAULT_TEMPERATURE : undefined)
  );
}

/**
 * The value sent in a mode's request: OpenAI's chat completions and Responses API take 0–2,
 * Anthropic's Messages 0–1 (a configured 1.5 is sent as 1 rather than refused with a 400).
 */
export function wireTemperature(apiMode: ApiMode, temperature: number | undefined): number | undefined {
  if (temperature === undefined) return undefined;
  return Math.min(temperature, apiMode === 'anthropic_messages' ? 1 : 2);
}
