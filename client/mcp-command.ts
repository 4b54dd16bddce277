/**
 * `herald mcp list` and `herald mcp test <server>`: connect to the configured MCP servers the way
 * a worker would (stdio servers in the tool sandbox), and show each one's status and tools under
 * the names the model sees. `herald tools` shows the same servers below the built-in tools.
 */
import pc from 'picocolors';
import type { McpServerConfig } from '../shared/mcp-config.js';
import { toolSelected } from '../shared/mcp-config.js';
import { oneLine } from '../common/text.js';
import { exposedNames } from '../mcp/names.js';
import { McpPool } from '../mcp/pool.js';
import { mcpToolFinding, mcpToolLeftOut } from '../mcp/screen.js';
import { MAX_DESCRIPTION_CHARS, adaptInputSchema } from '../mcp/schema.js';
import type { LeftOut } from '../common/left-out.js';
import { addLeftOut, describeLeftOut } from '../common/left-out.js';
import { defaultWorkspaceRoot } from '../runtime/workspace-roots.js';
import { ToolSandbox } from '../sandbox/sandbox.js';
import type { HeraldConfig } from '../runtime/config.js';
import { createLogger } from '../runtime/logger.js';

export interface McpProbe {
  name: string;
  transport: 'stdio' | 'http';
  status: 'ready' | 'failed' | 'disabled';
  reason?: string;
  durationMs: number;
  tools: Array<{ name: string; tool: string; readOnly: boolean; description: string }>;
  /** Tools a conversation would not get: their description looked like prompt injection (mcp/screen.ts). */
  leftOut: LeftOut[];
  resources: boolean;
}

export async function probeMcpServers(cfg: HeraldConfig, only?: string): Promise<McpProbe[]> {
  const servers = Object.entries(cfg.file.mcp.servers).filter(([name]) => only === undefined || name === only);
  if (servers.length === 0) return [];
  const log = createLogger('error');
  const sandbox = ToolSandbox.create({ config: cfg.file.sandbox, env: process.env, hidden: [cfg.home], log });
  const pool = new McpPool({
    sandbox,
    env: process.env,
    log,
    // The worker's default workspace, never the folder the command runs in (a checkout, a home).
    workspace: cfg.workspace ?? cfg.workspaceRoots.roots[0] ?? defaultWorkspaceRoot(),
    network: cfg.file.sandbox.network,
    version: '0.1.0',
  });
  try {
    return await Promise.all(servers.map(([name, server]) => probe(pool, name, server)));
  } finally {
    await pool.closeAll();
  }
}

async function probe(pool: McpPool, name: string, server: McpServerConfig): Promise<McpProbe> {
  const started = Date.now();
  const base = {
    name,
    transport: server.url ? ('http' as const) : ('stdio' as const),
    tools: [],
    leftOut: [],
    resources: false,
  };
  if (!server.enabled) return { ...base, status: 'disabled', reason: 'enabled: false', durationMs: 0 };
  try {
    const conn = await pool.get(name, server);
    // Screened as a worker's discovery screens them: what is left out is shown, not offered.
    const leftOut: LeftOut[] = [];
    const listed = (await pool.listTools(conn, server.connectTimeoutSeconds * 1000)).filter((t) => {
      if (!toolSelected(server, t.name)) return false;
      // The form a worker sends (mcp/discovery.ts): the description cut, the schema adapted.
      const description = (t.description ?? t.title ?? t.name).slice(0, MAX_DESCRIPTION_CHARS);
      const inputSchema = adaptInputSchema(t.inputSchema) ?? t.inputSchema;
      const rule = mcpToolFinding({ name: t.name, description, inputSchema }, server.trust);
      if (rule) addLeftOut(leftOut, mcpToolLeftOut(name, t.name, rule));
      return !rule;
    });
    const names = exposedNames(listed.map((t) => ({ server: name, tool: t.name })));
    return {
      ...base,
      status: 'ready',
      durationMs: Date.now() - started,
      resources: conn.hasResources && server.resources,
      leftOut,
      tools: listed.map((t, i) => ({
        name: names[i]!,
        tool: t.name,
        readOnly: t.annotations?.readOnlyHint === true,
        description: oneLine(t.description ?? '', 100),
      })),
    };
  } catch (err) {
    return { ...base, status: 'failed', reason: (err as Error).message, durationMs: Date.now() - started };
  }
}

export function renderMcpProbes(probes: readonly McpProbe[], withTools: boolean): string {
  if (probes.length === 0) return 'no MCP servers configured (mcp.servers in the config file)';
  return probes
    .map((p) => {
      const head =
        p.status === 'ready'
          ? `${pc.green('✓')} ${p.name} (${p.transport}): ready, ${p.tools.length} tool(s)${p.resources ? ' + resources' : ''}${p.leftOut.length ? `, ${p.leftOut.length} left out` : ''} in ${p.durationMs} ms`
          : `${pc.red('✗')} ${p.name} (${p.transport}): ${p.status}${p.reason ? ` — ${pc.yellow(p.reason)}` : ''}`;
      const refused = p.leftOut.map((n) => `    ${pc.red('✗')} ${pc.yellow(`left out: ${describeLeftOut(n)}`)}`);
      if (!withTools || p.tools.length === 0) return [head, ...refused].join('\n');
      const width = Math.max(...p.tools.map((t) => t.name.length));
      const lines = p.tools.map(
        (t) => `    ${t.name.padEnd(width)}  ${pc.dim(t.readOnly ? 'read-only' : 'serial   ')} ${t.description}`,
      );
      return [head, ...lines, ...refused].join('\n');
    })
    .join('\n');
}
