/** The registry of built-in tools a worker serves. */
import type { ConfigFile } from '../../common/config-schema.js';
import { clarifyTool } from './clarify.js';
import { readFileTool } from './read-file.js';
import { ToolRegistry } from './registry.js';
import { terminalTool } from './terminal.js';

export function builtinTools(config: ConfigFile): ToolRegistry {
  return new ToolRegistry().register(readFileTool).register(terminalTool(config.tools.terminal)).register(clarifyTool);
}
