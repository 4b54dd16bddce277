/**
 * `memory`: the agent's long-term notes (docs/long-conversations.md). Two stores in Postgres, shared by every worker
 * and conversation: `memory` (the agent's notes, 2,200 characters) and `user` (the user's profile,
 * 1,375 characters). Writes are screened for prompt injection (untrusted-text/prompt-screen.ts, strict rules) and refused
 * with the reason, because the stores are read back into every new session's system prompt; what
 * the tool shows of the stores is screened again (rows may come from older code or straight from
 * the database), an entry that fails shown as a `[left out: …]` placeholder.
 */
import { z } from 'zod';
import { screenFinding, screenForPrompt } from '../../untrusted-text/prompt-screen.js';
import { oneLine } from '../../common/text.js';
import {
  MEMORY_LIMITS,
  MEMORY_STORES,
  addMemory,
  listMemory,
  memoryChars,
  removeMemory,
  replaceMemory,
} from '../../store/memory.js';
import type { MemoryStore } from '../../store/memory.js';
import { defineTool } from './registry.js';
import type { ToolContext } from './registry.js';
import { TRAITS } from '../../common/tool-batch.js';

/** Compared as the system prompt would show them: case and spacing do not make a new fact. */
function sameFact(a: string, b: string): boolean {
  const norm = (text: string) => text.replace(/\s+/g, ' ').trim().toLowerCase();
  return norm(a) === norm(b);
}

function describeStore(store: MemoryStore, entries: Array<{ content: string }>): string {
  const used = memoryChars(entries);
  const header = `${store.toUpperCase()} (${used} of ${MEMORY_LIMITS[store]} characters):`;
  const label = `${store.toUpperCase()} entry`;
  return entries.length
    ? [
        header,
        ...entries.map((e, i) => `${i + 1}. ${screenForPrompt(`${label} ${i + 1}`, e.content, undefined, 'strict')}`),
      ].join('\n')
    : `${header} empty`;
}

export const memoryTool = defineTool({
  name: 'memory',
  toolset: 'memory',
  // The first sentence is the whole description in compact mode. It names the user's word, "remember",
  // so that a small model saves with memory/add instead of a todo item or a replace on an empty store
  // (docs/decisions/small-models.md, "Measurements the code rests on").
  description:
    'Save what the user asks you to remember, for future conversations. This is your long-term memory: store ' +
    '`memory` is for your own notes (facts about the environment, ' +
    'lessons learned); store `user` is the user profile (preferences, role, conventions). Actions: read, add, replace ' +
    '(entries containing `match` get `content`), remove (entries containing `match`). Keep entries short and factual; ' +
    'new sessions see them in the system prompt.',
  parameters: z
    .object({
      action: z.enum(['read', 'add', 'replace', 'remove']),
      store: z.enum(MEMORY_STORES).default('memory'),
      content: z.string().min(1).max(1000).optional().describe('The entry text (add, replace)'),
      // No minimum: small models fill every field, `"match": ""` with an add (Qwen2.5-Coder 1.5B did,
      // and the add was refused as invalid); an empty match is no match, which replace and remove refuse.
      match: z.string().max(200).optional().describe('A substring of the entries to change (replace, remove)'),
    })
    .strict(),
  traits: TRAITS.serial,
  summarize: (a) =>
    `memory: ${a.action} ${a.store}${a.content ? ` "${oneLine(a.content, 60)}"` : a.match ? ` "${oneLine(a.match, 60)}"` : ''}`,
  timeoutSeconds: () => 30,
  async handler(a, ctx: ToolContext) {
    const db = ctx.db;
    if (!db) return { content: 'memory is not available on this worker', isError: true };
    if ((a.action === 'add' || a.action === 'replace') && !a.content)
      return { content: `${a.action} needs "content"`, isError: true };
    if ((a.action === 'replace' || a.action === 'remove') && !a.match)
      return {
        content:
          `${a.action} needs "match" (a piece of the entry to change); nothing was changed.` +
          (a.action === 'replace' ? ' To save a new entry, use action "add".' : ''),
        isError: true,
      };
    if (a.content) {
      const rule = screenFinding(a.content, 'strict');
      if (rule) {
        return {
          content: `Refused: the entry looks like a prompt injection (${rule}); nothing was saved. Memory must hold plain facts.`,
          isError: true,
        };
      }
    }
    const entries = await listMemory(db, a.store);
    const limit = MEMORY_LIMITS[a.store];
    const alreadyIn = (store: MemoryStore, listing: Array<{ content: string }>) => ({
      content: `Already in ${store}: "${oneLine(a.content!, 80)}" — nothing to do.\n${describeStore(store, listing)}`,
    });
    if (a.action === 'add') {
      // At least once: a re-run of the same add (or the model repeating itself) must not duplicate it.
      // Both stores are looked at: they end up side by side in the system prompt, and Qwen2.5-Coder
      // 1.5B saved one preference in `user` and then, on the next call, the same text in `memory`.
      if (entries.some((e) => sameFact(e.content, a.content!))) return alreadyIn(a.store, entries);
      const other = a.store === 'user' ? 'memory' : 'user';
      const otherEntries = await listMemory(db, other);
      if (otherEntries.some((e) => sameFact(e.content, a.content!))) return alreadyIn(other, otherEntries);
      if (memoryChars(entries) + a.content!.length > limit) {
        return {
          content: `The ${a.store} store is full (${memoryChars(entries)} of ${limit} characters). Replace or remove entries first.\n${describeStore(a.store, entries)}`,
          isError: true,
        };
      }
      await addMemory(db, a.store, a.content!);
    } else if (a.action === 'replace') {
      const matching = entries.filter((e) => e.content.includes(a.match!));
      // Replacing an entry with its own text is not a change: saying "Replaced" made the model do it
      // again until the loop guard refused (the same 1.5B model, five times).
      if (matching.length && matching.every((e) => sameFact(e.content, a.content!))) return alreadyIn(a.store, entries);
      const after = memoryChars(entries) - memoryChars(matching) + a.content!.length * matching.length;
      if (matching.length && after > limit)
        return { content: `That would exceed the ${a.store} limit of ${limit} characters.`, isError: true };
      if (!(await replaceMemory(db, a.store, a.match!, a.content!)))
        return {
          content: `No ${a.store} entry contains "${a.match}". To save a new entry, use action "add".`,
          isError: true,
        };
    } else if (a.action === 'remove') {
      if (!(await removeMemory(db, a.store, a.match!)))
        return { content: `No ${a.store} entry contains "${a.match}".`, isError: true };
    }
    // Said plainly, done: small models re-ran a write whose result was only the store's listing.
    const head = {
      read: '',
      add: `Saved in ${a.store}; new sessions will see it in their system prompt.\n`,
      replace: `Replaced in ${a.store}; new sessions will see the new text.\n`,
      remove: `Removed from ${a.store}.\n`,
    }[a.action];
    return { content: head + describeStore(a.store, await listMemory(db, a.store)) };
  },
});
