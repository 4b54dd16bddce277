/** The folders `npm run build` compiles (tsconfig.build.json's `include`): the one list tests walk. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../../runtime/paths.js';

export const BUILD_FOLDERS: readonly string[] = (
  JSON.parse(readFileSync(join(PROJECT_ROOT, 'tsconfig.build.json'), 'utf8')) as { include: string[] }
).include;
