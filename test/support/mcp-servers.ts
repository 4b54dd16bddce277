/**
 * The real MCP servers from npm the MCP tests run (devDependencies): where their entry points are,
 * and the node_modules folder a sandboxed server must be able to read.
 */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

function findPackage(name: string): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = join(dir, 'node_modules', name, 'dist', 'index.js');
    if (existsSync(candidate)) return candidate;
    const up = dirname(dir);
    if (up === dir) throw new Error(`${name} is not installed (npm ci installs it as a devDependency)`);
    dir = up;
  }
}

export const EVERYTHING_SERVER = findPackage('@modelcontextprotocol/server-everything');
export const FILESYSTEM_SERVER = findPackage('@modelcontextprotocol/server-filesystem');
/** The node_modules folders the servers load their code from (readable inside the sandbox). */
export const SERVER_MODULES = [
  ...new Set([EVERYTHING_SERVER, FILESYSTEM_SERVER].map((p) => p.slice(0, p.lastIndexOf('/node_modules/') + 13))),
];
