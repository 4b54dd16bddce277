/** Where the checkpoint store lives: one shadow repository per conversation under the Herald home. */
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import type { ShadowRepo } from './shadow-git.js';

export function checkpointStore(home: string): string {
  return join(home, 'checkpoints');
}

/** The shadow repository of a conversation, named by a hash of its id (ids are the caller's text). */
export function shadowRepoOf(home: string, conversationId: string, workspace: string): ShadowRepo {
  const key = createHash('sha256').update(conversationId).digest('hex').slice(0, 32);
  return { gitDir: join(checkpointStore(home), `${key}.git`), workTree: workspace };
}
