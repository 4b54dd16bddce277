/**
 * Which key may go to which endpoint. A model call sends the value of one environment variable (its
 * key source) to one URL (its endpoint); the two are judged together, never one at a time, so a
 * caller cannot take an endpoint from one declaration and a key from another (a local preset's
 * loopback port with the worker's OpenAI key). The pairs come from the worker: each provider's own
 * standard pair, and every pair its configuration resolves to (shared/declared-pairs.ts).
 * Pure: the workflow bundle may import it.
 */

/** No key source: the call goes out with a placeholder key, never the value of a worker variable. */
export const NO_KEY = '';

/** One endpoint a key variable may be sent to. `keyEnv` NO_KEY: the endpoint is known, with no key. */
export interface EndpointKeyPair {
  baseUrl: string;
  keyEnv: string;
}

/**
 * The form two endpoints are compared in: scheme, host and port as the WHATWG URL parser (the one
 * both SDKs use) reads them, and the path without trailing slashes. Undefined for a URL no key may
 * go to: not http(s); userinfo (`https://api.openai.com@evil.test` is a request to evil.test); a
 * fragment; whitespace, control characters or backslashes (parsers disagree on them). Nothing else
 * is merged: `localhost` and `127.0.0.1`, a trailing dot, another path or port, http and https are
 * different endpoints (decimal and hex IPv4 forms and default ports are the parser's own rewriting,
 * so they are the same endpoint).
 */
export function canonicalEndpoint(url: string): string | undefined {
  // eslint-disable-next-line no-control-regex -- control characters are exactly what is refused
  if (/[\s\u0000-\u001f\u007f\\@#]/.test(url)) return undefined;
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return undefined;
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return undefined;
  if (u.username || u.password || u.hash || !u.hostname) return undefined;
  return `${u.protocol}//${u.host}${u.pathname.replace(/\/+$/, '')}${u.search}`;
}

export type EndpointKeyVerdict =
  | { ok: true }
  /** The endpoint is in no pair (or is not a URL a key may go to). */
  | { ok: false; problem: 'endpoint'; message: string }
  /** The endpoint is known, but not with this key variable. */
  | { ok: false; problem: 'key'; keyEnv: string; message: string };

/**
 * Whether a call may send each of `keyEnvs` (its `apiKeyEnv`, or every variable of its credential
 * pool) to `baseUrl`: the endpoint must be in a pair, and every variable paired with it. NO_KEY is
 * paired with every known endpoint.
 */
export function judgeEndpointKey(
  baseUrl: string,
  keyEnvs: readonly string[],
  pairs: readonly EndpointKeyPair[],
): EndpointKeyVerdict {
  const endpoint = canonicalEndpoint(baseUrl);
  const known = endpoint === undefined ? [] : pairs.filter((p) => canonicalEndpoint(p.baseUrl) === endpoint);
  if (!known.length)
    return { ok: false, problem: 'endpoint', message: `${clip(baseUrl)} is not an endpoint this worker declares` };
  const paired = new Set(known.map((p) => p.keyEnv));
  for (const keyEnv of keyEnvs) {
    if (keyEnv === NO_KEY || paired.has(keyEnv)) continue;
    const others = [...paired].filter((k) => k !== NO_KEY);
    const shown = others.length ? `paired with it: ${clip(others.slice(0, 8).join(', '))}` : 'no key is paired with it';
    return {
      ok: false,
      problem: 'key',
      keyEnv,
      message: `${clip(keyEnv)} is not a key this worker sends to ${clip(baseUrl)} (${shown}); to send it there, pair them in the worker's config: providers.<name>.baseUrl with providers.<name>.apiKeyEnv`,
    };
  }
  return { ok: true };
}

/** Names and URLs quoted in a refusal are the caller's: bounded. */
function clip(text: string): string {
  return text.length > 200 ? `${text.slice(0, 199)}…` : text;
}
