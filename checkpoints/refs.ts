/**
 * Refs of the shadow repository read and written as files: a snapshot's idempotency check and its
 * ref cost no git process. The shadow repository never packs its refs (no `gc` runs on it:
 * `gc.auto=0`), so every ref is a loose file `<git dir>/<ref>` holding a commit id; a ref is
 * written to a temporary file and renamed into place, so a reader sees all of it or none.
 */
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { ShadowRepo } from './shadow-git.js';

const COMMIT_ID = /^[0-9a-f]{40}$/;

/** The commit id a ref holds, or undefined (missing, or not a commit id). */
export function readRef(repo: ShadowRepo, ref: string): string | undefined {
  try {
    const id = readFileSync(join(repo.gitDir, ref), 'utf8').trim();
    return COMMIT_ID.test(id) ? id : undefined;
  } catch {
    return undefined;
  }
}

export function writeRef(repo: ShadowRepo, ref: string, commit: string): void {
  if (!COMMIT_ID.test(commit)) throw new Error(`not a commit id: ${commit.slice(0, 80)}`);
  const file = join(repo.gitDir, ref);
  mkdirSync(dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, `${commit}\n`);
  renameSync(tmp, file);
}
