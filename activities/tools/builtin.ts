/** The registry of built-in tools a worker serves, and the composite toolsets. */
import type { ConfigFile } from '../../common/config-schema.js';
import { clarifyTool } from './clarify.js';
import { delegateTaskTool } from './delegate.js';
import { patchTool } from './patch.js';
import { readFileTool } from './read-file.js';
import { ToolRegistry } from './registry.js';
import { searchFilesTool } from './search-files.js';
import { terminalTool } from './terminal.js';
import { memoryTool } from './memory.js';
import { sessionSearchTool } from './session-search.js';
import { todoTool } from './todo.js';
import { writeFileTool } from './write-file.js';

export function builtinTools(config: ConfigFile): ToolRegistry {
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
      .register(clarifyTool)
      .register(delegateTaskTool(config.delegation))
      // `toolsets: [readonly]` gives a look-but-don't-touch agent; `coding` is everything but asking the user.
      // `minimal` is for small local models: the fewest tools that still read, edit and run (issue 14).
      .defineToolset('minimal', ['file', 'terminal'])
      .defineToolset('readonly', ['read_file', 'search_files', 'todo', 'session_search'])
      .defineToolset('coding', ['file', 'terminal', 'todo', 'memory', 'session_search'])
      .defineToolset('all', ['file', 'terminal', 'todo', 'memory', 'session_search', 'clarify', 'delegation'])
  );
}
