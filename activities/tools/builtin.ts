/** The registry of built-in tools a worker serves, and the composite toolsets. */
import type { ConfigFile } from '../../shared/config-schema.js';
import { clarifyTool } from './clarify.js';
import { delegateTaskTool } from './delegate.js';
import { patchTool } from './patch.js';
import { readFileTool } from './read-file.js';
import { ToolRegistry } from './registry.js';
import { searchFilesTool } from './search-files.js';
import { terminalTool } from './terminal.js';
import { memoryTool } from './memory.js';
import { sessionSearchTool } from './session-search.js';
import type { SkillSettings } from '../../skills/discover.js';
import { skillViewTool, skillsListTool } from './skills.js';
import { todoTool } from './todo.js';
import { writeFileTool } from './write-file.js';

/**
 * `skills` (where skills are looked for besides the workspace: the Herald home, `skills.paths`)
 * comes from the worker's configuration (skills/discover.ts `skillSettings`); without
 * it only the workspace's skills are found.
 */
export function builtinTools(config: ConfigFile, skills: SkillSettings = { paths: [] }): ToolRegistry {
  return (
    new ToolRegistry()
      .register(readFileTool)
      .register(writeFileTool)
      .register(patchTool)
      .register(searchFilesTool)
      .register(terminalTool(config.tools.terminal))
      .register(todoTool)
      .register(memoryTool)
      .register(sessionSearchTool)
      .register(skillsListTool(skills))
      .register(skillViewTool(skills))
      .register(clarifyTool)
      .register(delegateTaskTool(config.delegation))
      // `toolsets: [readonly]` gives a look-but-don't-touch agent; `coding` is everything but asking the user.
      // `minimal` is for small local models: the fewest tools that still read, edit and run (docs/providers.md).
      .defineToolset('minimal', ['file', 'terminal'])
      // Skills only read, so every composite has them (as Hermes enables them by default).
      .defineToolset('readonly', ['read_file', 'search_files', 'todo', 'session_search', 'skills'])
      .defineToolset('coding', ['file', 'terminal', 'todo', 'memory', 'session_search', 'skills'])
      .defineToolset('all', ['file', 'terminal', 'todo', 'memory', 'session_search', 'skills', 'clarify', 'delegation'])
  );
}
