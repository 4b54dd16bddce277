/**
 * How Herald authenticates to a Temporal that is not `herald dev`'s — Temporal Cloud (mTLS or an
 * API key) or a secured cluster: through the SDK's environment configuration
 * (`@temporalio/envconfig`), so the variables and the TOML profile file are the ones the Temporal
 * CLI and every other SDK read (`TEMPORAL_API_KEY`, `TEMPORAL_TLS*`, `TEMPORAL_GRPC_META_*`,
 * `TEMPORAL_CONFIG_FILE`, `TEMPORAL_PROFILE`) rather than names of Herald's own.
 *
 * The profile file is read only when `TEMPORAL_CONFIG_FILE` or `TEMPORAL_PROFILE` asks for it: the
 * SDK would otherwise read `~/.config/temporalio/temporal.toml` by default, and a CLI profile made
 * for another project must not quietly send `herald chat` away from the local `herald dev`.
 */
import type { TLSConfig } from '@temporalio/client';
import { loadClientConnectConfig } from '@temporalio/envconfig';

/** What a connection needs beyond its address: spread into `Connection.connect` / `NativeConnection.connect`. */
export interface TemporalSecurity {
  tls?: TLSConfig | boolean;
  apiKey?: string;
  metadata?: Record<string, string>;
}

export interface TemporalProfile {
  /** TEMPORAL_ADDRESS, else the profile file's address. */
  address?: string;
  namespace?: string;
  security: TemporalSecurity;
}

/**
 * The Temporal connection profile the environment describes. Empty variables count as unset (a
 * Kubernetes Secret or compose file often carries `TEMPORAL_API_KEY: ''`, and the SDK would take
 * an empty key as "use TLS"). Throws when a named file or profile is missing or broken.
 */
export function loadTemporalProfile(env: NodeJS.ProcessEnv): TemporalProfile {
  const vars: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) if (v !== undefined && v !== '') vars[k] = v;
  const useFile = vars.TEMPORAL_CONFIG_FILE !== undefined || vars.TEMPORAL_PROFILE !== undefined;
  const { namespace, connectionOptions: c } = loadClientConnectConfig({
    overrideEnvVars: vars,
    disableFile: !useFile,
  });
  const security: TemporalSecurity = {};
  if (c.tls !== undefined && c.tls !== null) security.tls = c.tls;
  if (typeof c.apiKey === 'string') security.apiKey = c.apiKey;
  const headers = Object.entries(c.metadata ?? {}).map(([k, v]) => [k, String(v)] as const);
  if (headers.length) security.metadata = Object.fromEntries(headers);
  return {
    ...(c.address ? { address: c.address } : {}),
    ...(namespace ? { namespace } : {}),
    security,
  };
}

/**
 * What to set when a Temporal Cloud address is dialled without credentials (Cloud accepts none
 * without TLS, and the failure otherwise reads as a plain timeout); undefined when that is not it.
 */
export function missingCredentialsHint(address: string, s: TemporalSecurity): string | undefined {
  const cloud = /\.tmprl\.cloud(:\d+)?$|\.api\.temporal\.io(:\d+)?$/.test(address);
  if (!cloud || s.apiKey || (s.tls !== undefined && s.tls !== false)) return undefined;
  return 'Temporal Cloud needs credentials: set TEMPORAL_API_KEY, or TEMPORAL_TLS_CLIENT_CERT_PATH and TEMPORAL_TLS_CLIENT_KEY_PATH';
}

/** A one-line description for logs and banners: never the key or certificate themselves. */
export function describeSecurity(s: TemporalSecurity): string {
  const tls =
    s.tls === undefined || s.tls === false
      ? 'no TLS'
      : typeof s.tls === 'object' && s.tls.clientCertPair
        ? 'mTLS'
        : 'TLS';
  return s.apiKey ? `${tls}, API key` : tls;
}
