/**
 * The `mcp.servers.<name>` section of the config file (docs/mcp.md): MCP servers Herald connects to
 * as a client. Secrets are named, never written: an `env` or `headers` value is either plain text
 * (with `${VAR}` references expanded from the worker's environment at connect time) or
 * `{ fromEnv: VAR }`. The config stays in the worker; workflows only ever see server names,
 * tool names and hashes. Pure (zod only).
 */
import { z } from 'zod';
import { networkPolicySchema } from '../common/sandbox-policy.js';

export const MCP_SERVER_NAME = /^[A-Za-z0-9_-]{1,32}$/;
const envName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'an environment variable name');

/** A value taken from the worker's environment (`{ fromEnv: VAR }`) or text with `${VAR}` references. */
export const secretValueSchema = z.union([z.string().max(4096), z.object({ fromEnv: envName }).strict()]);
export type SecretValue = z.infer<typeof secretValueSchema>;

const approvalLevel = z.enum(['never', 'always']);
const toolName = z.string().min(1).max(128);

export const mcpServerSchema = z
  .object({
    /** stdio: the program and its arguments. */
    command: z.string().min(1).optional(),
    args: z.array(z.string().max(4096)).max(100).default([]),
    env: z.record(envName, secretValueSchema).default({}),
    /** stdio: the folder the server runs in (and, sandboxed, the folder it may write); default the worker's workspace. */
    cwd: z.string().startsWith('/', 'an absolute path').optional(),
    /** Streamable HTTP: the endpoint, and headers (by env reference for secrets). */
    url: z.string().url().optional(),
    headers: z.record(z.string().min(1).max(200), secretValueSchema).default({}),
    enabled: z.boolean().default(true),
    /** The longest one tool call may run. */
    timeoutSeconds: z.number().int().min(1).max(3600).default(120),
    /** The longest starting the server and listing its tools may take (discovery runs inside the session start). */
    connectTimeoutSeconds: z.number().int().min(1).max(25).default(20),
    /** More toolsets its tools belong to, beside `mcp` and `mcp:<name>`. */
    toolsets: z.array(z.string().min(1).max(64)).max(20).default([]),
    /** Only these tools (names as the server gives them); `exclude` removes tools after that. */
    include: z.array(toolName).max(500).optional(),
    exclude: z.array(toolName).max(500).default([]),
    /** Whether a call needs a person's approval: for every tool, or per tool (others `never`). */
    approval: z.union([approvalLevel, z.record(toolName, approvalLevel)]).default('never'),
    /** `untrusted` (default): results reach the model framed as data from outside the conversation. */
    trust: z.enum(['untrusted', 'trusted']).default('untrusted'),
    /** stdio in the sandbox: the server's network (wider than the worker's `sandbox.network` if set). */
    network: networkPolicySchema.optional(),
    /** Offer `list_resources` / `read_resource` tools when the server has resources. */
    resources: z.boolean().default(true),
    /** Offer `list_prompts` / `get_prompt` tools when the server has prompts. */
    prompts: z.boolean().default(true),
  })
  .strict()
  .refine((s) => (s.command === undefined) !== (s.url === undefined), {
    message: 'give either command (stdio) or url (Streamable HTTP), not both',
  });
export type McpServerConfig = z.infer<typeof mcpServerSchema>;

export const mcpConfigSchema = z
  .object({
    servers: z
      .record(
        z.string().regex(MCP_SERVER_NAME, 'a server name: letters, digits, "_" or "-", at most 32'),
        mcpServerSchema,
      )
      .default({}),
  })
  .strict()
  .default({ servers: {} });
export type McpConfig = z.infer<typeof mcpConfigSchema>;

/** Whether a call of `tool` on this server needs approval. */
export function needsApproval(server: McpServerConfig, tool: string): boolean {
  const a = server.approval;
  return typeof a === 'string' ? a === 'always' : a[tool] === 'always';
}

/** Whether the server's config keeps this tool (include, then exclude). */
export function toolSelected(server: McpServerConfig, tool: string): boolean {
  if (server.include && !server.include.includes(tool)) return false;
  return !server.exclude.includes(tool);
}

/** The variables the servers' `env` and `headers` read: the process redactor must know their values. */
export function mcpSecretEnvNames(config: McpConfig): string[] {
  const names = new Set<string>();
  for (const server of Object.values(config.servers))
    for (const v of [...Object.values(server.env), ...Object.values(server.headers)]) {
      if (typeof v === 'object') names.add(v.fromEnv);
      else for (const m of v.matchAll(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g)) names.add(m[1]!);
    }
  return [...names];
}
