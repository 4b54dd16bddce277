/** Where things live: the project root (for the local tool virtualenv) and the Herald home. */
import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The root of the Herald package (where package.json is). */
export const PROJECT_ROOT = dirname(dirname(fileURLToPath(import.meta.url)));

export function ensureDir(path: string): string {
  mkdirSync(path, { recursive: true });
  return path;
}

export function homePaths(home: string) {
  return {
    home,
    temporalDb: join(home, 'temporal', 'temporal.db'),
    runtimeFile: join(home, 'runtime.json'),
    logs: join(home, 'logs'),
  };
}
