/**
 * `herald tools`, `herald mcp` and `herald skills`: what a worker with this configuration offers a
 * conversation — its tools, its MCP servers, the skills a workspace gets.
 */
import type { Command } from 'commander';
import pc from 'picocolors';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { mcpServerSelected } from '../../common/mcp-state.js';
import { ConfigError } from '../../runtime/config.js';
import { config, print } from './shared.js';

export function registerTools(program: Command): void {
  program
    .command('tools')
    .description('list the tools a worker with this configuration offers, and why one is not available')
    .option('--toolsets <list>', "comma-separated toolsets to check (default: the config's tools.toolsets, else all)")
    .option('--json', 'print JSON')
    .option('--no-mcp', 'leave out MCP servers (listing them starts them)')
    .action(async (o: { toolsets?: string; json?: boolean; mcp: boolean }) => {
      const [{ builtinTools }, { skillSettings }, { probeMcpServers, renderMcpProbes }] = await Promise.all([
        import('../../activities/tools/builtin.js'),
        import('../../skills/discover.js'),
        import('../mcp-command.js'),
      ]);
      const cfg = config();
      const registry = builtinTools(cfg.file, skillSettings(cfg));
      const selection = o.toolsets ? o.toolsets.split(',').map((t) => t.trim()) : cfg.file.tools.toolsets;
      const rows = registry.status(selection);
      const width = Math.max(...rows.map((r) => r.name.length));
      const setWidth = Math.max(...rows.map((r) => r.toolset.length));
      const text = rows
        .map(
          (r) =>
            `${r.enabled ? pc.green('✓') : pc.red('✗')} ${r.name.padEnd(width)}  ${pc.dim(r.toolset.padEnd(setWidth))} ${r.enabled ? r.description.split('. ')[0] : pc.yellow(r.reason ?? '')}`,
        )
        .join('\n');
      const source = o.toolsets
        ? 'from --toolsets'
        : selection
          ? `from tools.toolsets in ${cfg.configPath ?? 'the config'}`
          : 'no tools.toolsets in the config';
      const servers = o.mcp
        ? Object.keys(cfg.file.mcp.servers).filter((n) =>
            mcpServerSelected(selection, n, cfg.file.mcp.servers[n]!.toolsets),
          )
        : [];
      const probes = servers.length ? (await probeMcpServers(cfg)).filter((p) => servers.includes(p.name)) : [];
      const mcpText = probes.length ? `\n\nMCP servers:\n${renderMcpProbes(probes, true)}` : '';
      print(
        Boolean(o.json),
        probes.length ? { tools: rows, mcp: probes } : rows,
        `toolsets: ${selection?.join(', ') ?? 'all'} (${source})\n${text}${mcpText}`,
      );
    });
}

export function registerMcp(program: Command): void {
  const mcp = program.command('mcp').description('MCP servers of this configuration: status and tools');
  mcp
    .command('list', { isDefault: true })
    .description('connect to every configured MCP server and show its status and tools')
    .option('--json', 'print JSON')
    .action(async (o: { json?: boolean }) => {
      const { probeMcpServers, renderMcpProbes } = await import('../mcp-command.js');
      const probes = await probeMcpServers(config());
      print(Boolean(o.json), probes, renderMcpProbes(probes, true));
    });
  mcp
    .command('test')
    .description('start one MCP server, list its tools, and say why when it does not work')
    .argument('<server>', 'the name under mcp.servers')
    .option('--json', 'print JSON')
    .action(async (server: string, o: { json?: boolean }) => {
      const cfg = config();
      if (!cfg.file.mcp.servers[server])
        throw new ConfigError(
          `no MCP server "${server}" in the config (configured: ${Object.keys(cfg.file.mcp.servers).join(', ') || 'none'})`,
          'mcp.servers',
        );
      const { probeMcpServers, renderMcpProbes } = await import('../mcp-command.js');
      const probes = await probeMcpServers(cfg, server);
      print(Boolean(o.json), probes[0], renderMcpProbes(probes, true));
      if (probes[0]?.status !== 'ready') process.exitCode = 1;
    });
}

export function registerSkills(program: Command): void {
  const skills = program
    .command('skills')
    .description('list the skills a conversation in a workspace gets, and show one (SKILL.md folders)');
  const skillsWhere = async (o: { cwd?: string }) => {
    const { skillSettings } = await import('../../skills/discover.js');
    const cfg = config();
    const cwd = resolve(o.cwd ?? process.cwd());
    if (!existsSync(cwd)) throw new Error(`no such folder: ${cwd}`);
    return { settings: skillSettings(cfg), cwd };
  };
  skills
    .command('list', { isDefault: true })
    .description('every skill found for the workspace, and the ones refused (blocked, broken, shadowed) with why')
    .option('--cwd <dir>', 'the workspace (default: the current folder)')
    .option('--json', 'print JSON')
    .action(async (o: { cwd?: string; json?: boolean }) => {
      const { settings, cwd } = await skillsWhere(o);
      const [{ discoverSkills }, { renderSkillsList }] = await Promise.all([
        import('../../skills/discover.js'),
        import('../skills-command.js'),
      ]);
      const catalog = await discoverSkills(settings, cwd);
      print(Boolean(o.json), catalog, renderSkillsList(catalog, settings, cwd));
    });
  skills
    .command('show')
    .description("print a skill's instructions and its files, or one of its files, as the agent reads them")
    .argument('<name>', 'the skill')
    .argument('[path]', "one of its files, relative to the skill's folder")
    .option('--cwd <dir>', 'the workspace (default: the current folder)')
    .option('--json', 'print JSON')
    .action(async (name: string, path: string | undefined, o: { cwd?: string; json?: boolean }) => {
      const { settings, cwd } = await skillsWhere(o);
      const { renderSkillView, viewSkill } = await import('../../skills/view.js');
      const view = await viewSkill(settings, cwd, name, path);
      if (!view.ok) throw new Error(view.error);
      print(Boolean(o.json), view, renderSkillView(view));
    });
}
