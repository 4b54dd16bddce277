/**
 * Secret values of MCP server configs, resolved from the worker's environment only when a
 * connection is made: `{ fromEnv: VAR }` or text with `${VAR}` references. The resolved values
 * exist in the connection's memory and the child's environment, never in an activity result,
 * workflow state or the database (the config hash is taken over the references, not the values).
 */
import { createHash } from 'node:crypto';
import type { McpServerConfig, SecretValue } from '../shared/mcp-config.js';

export class MissingSecretError extends Error {}

export function resolveValue(v: SecretValue, env: NodeJS.ProcessEnv): string {
  if (typeof v === 'object') {
    const value = env[v.fromEnv];
    if (value === undefined) throw new MissingSecretError(`environment variable ${v.fromEnv} is not set`);
    return value;
  }
  return v.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_, name: string) => {
    const value = env[name];
    if (value === undefined) throw new MissingSecretError(`environment variable ${name} is not set`);
    return value;
  });
}

export function resolveRecord(rec: Record<string, SecretValue>, env: NodeJS.ProcessEnv): Record<string, string> {
  return Object.fromEntries(Object.entries(rec).map(([k, v]) => [k, resolveValue(v, env)]));
}

/** Identity of a server's config (with references, not values): a changed config gets a new connection. */
export function configHash(name: string, server: McpServerConfig): string {
  return createHash('sha256')
    .update(JSON.stringify([name, server]))
    .digest('hex')
    .slice(0, 16);
}
