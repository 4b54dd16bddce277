/** Where things live: the project root (for the local tool virtualenv), the code, and the Herald home. */
import { mkdirSync } from 'node:fs';
import { basename, dirname, extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = fileURLToPath(import.meta.url);

/**
 * Where the module tree runs from: the repository root when the TypeScript sources run (through
 * tsx), `<package>/dist` when the compiled build does (`npm run build`, docs/install.md).
 */
export const CODE_ROOT = dirname(dirname(HERE));

/** The root of the Herald package (where package.json is), whichever tree runs. */
export const PROJECT_ROOT = basename(CODE_ROOT) === 'dist' ? dirname(CODE_ROOT) : CODE_ROOT;

/**
 * The file of one of Herald's own modules, named without extension from the code root
 * (`workflows/index`): `.ts` from the sources, `.js` from the build. For the paths Temporal loads
 * itself (the workflow bundle, the payload converter), which no import statement resolves.
 */
export function codeModule(name: string): string {
  return join(CODE_ROOT, `${name}${extname(HERE)}`);
}

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
