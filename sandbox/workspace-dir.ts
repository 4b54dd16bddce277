/**
 * Changing files in a workspace that sandboxed processes may be changing at the same moment (a
 * stdio MCP server, a child agent's call): a folder swapped for a link between a check and a write
 * would send the worker's write out of the workspace. So a folder is opened one component at a
 * time from the workspace, each without following a link, and every later step names files through
 * that descriptor (`/proc/self/fd/N/name`: the kernel goes straight to the opened folder). A link
 * anywhere on the way is refused (ELOOP or ENOTDIR) instead of followed. Linux only, as the sandbox.
 */
import { closeSync, constants, openSync } from 'node:fs';
import { relative, sep } from 'node:path';
import { isInside } from './host.js';

const DIR_FLAGS = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW;

/** A folder of the workspace, held open; `at(name)` names an entry of it. Close it when done. */
export interface HeldDir {
  at(name: string): string;
  close(): void;
}

/** Open `dir` (inside `workspace`, a real path) without following any link below the workspace. */
export function holdDir(workspace: string, dir: string): HeldDir {
  if (!isInside(workspace, dir)) throw new Error(`${dir} is not inside the workspace`);
  let fd = openSync(workspace, DIR_FLAGS);
  try {
    for (const part of relative(workspace, dir).split(sep).filter(Boolean)) {
      const next = openSync(`/proc/self/fd/${fd}/${part}`, DIR_FLAGS);
      closeSync(fd);
      fd = next;
    }
  } catch (err) {
    closeSync(fd);
    throw err;
  }
  const held = fd;
  return { at: (name) => `/proc/self/fd/${held}/${name}`, close: () => closeSync(held) };
}
