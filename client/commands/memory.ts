/** `herald memory`: show, add, remove, edit and export the MEMORY and USER stores (in Postgres). */
import type { Command } from 'commander';
import { Argument } from 'commander';
import pc from 'picocolors';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { MemoryEntry, MemoryStore } from '../../store/memory.js';
import {
  MEMORY_LIMITS,
  MEMORY_STORES,
  addMemory,
  clearMemory,
  listMemory,
  memoryChars,
  removeMemory,
} from '../../store/memory.js';
import { config, print, withDb } from './shared.js';

type ScreenFinding = (text: string, mode: 'strict') => string | undefined;

export function registerMemory(program: Command): void {
  const memory = program
    .command('memory')
    .description('show, edit and export the MEMORY and USER stores (in Postgres)');
  const storeArg = () => new Argument('<store>', 'which store').choices([...MEMORY_STORES]);
  memory
    .command('show', { isDefault: true })
    .description('print both stores')
    .option('--json', 'print JSON')
    .action(async (o: { json?: boolean }) => {
      const data = await withDb(async (db) => ({
        memory: await listMemory(db, 'memory'),
        user: await listMemory(db, 'user'),
      }));
      const { screenFinding } = await import('../../untrusted-text/prompt-screen.js');
      print(
        Boolean(o.json),
        data,
        renderMemory('MEMORY', data.memory, MEMORY_LIMITS.memory, screenFinding) +
          '\n\n' +
          renderMemory('USER', data.user, MEMORY_LIMITS.user, screenFinding),
      );
    });
  memory
    .command('add')
    .description('add an entry')
    .addArgument(storeArg())
    .argument('<text>', 'the entry')
    .action(async (store: MemoryStore, text: string) => {
      await withDb(async (db) => {
        const entries = await listMemory(db, store);
        if (memoryChars(entries) + text.length > MEMORY_LIMITS[store])
          throw new Error(`the ${store} store is full (${memoryChars(entries)} of ${MEMORY_LIMITS[store]} characters)`);
        await addMemory(db, store, text);
        process.stderr.write(
          `added to ${store} (${memoryChars(entries) + text.length} of ${MEMORY_LIMITS[store]} characters)\n`,
        );
        // Your own entry is kept, but new sessions' prompts will show a placeholder instead: say so now.
        const { screenFinding } = await import('../../untrusted-text/prompt-screen.js');
        const rule = screenFinding(text, 'strict');
        if (rule)
          process.stderr.write(
            pc.yellow(
              `warning: system prompts will leave this entry out: it looked like a prompt injection: ${rule}\n`,
            ),
          );
      });
    });
  memory
    .command('remove')
    .description('remove the entries containing a text')
    .addArgument(storeArg())
    .argument('<match>', 'a substring of the entries to remove')
    .action(async (store: MemoryStore, match: string) => {
      const n = await withDb((db) => removeMemory(db, store, match));
      process.stderr.write(`removed ${n} entr${n === 1 ? 'y' : 'ies'}\n`);
    });
  memory
    .command('edit')
    .description('edit a store in $EDITOR (one entry per line)')
    .addArgument(storeArg())
    .action(async (store: MemoryStore) => {
      await withDb(async (db) => {
        const file = join(mkdtempSync(join(tmpdir(), 'herald-memory-')), `${store.toUpperCase()}.md`);
        writeFileSync(file, (await listMemory(db, store)).map((e) => e.content.replace(/\n/g, ' ')).join('\n') + '\n');
        const editor = process.env.VISUAL ?? process.env.EDITOR ?? 'vi';
        const r = spawnSync(editor, [file], { stdio: 'inherit', shell: true });
        if (r.status !== 0) throw new Error(`${editor} exited with ${r.status}; nothing changed`);
        const lines = readFileSync(file, 'utf8')
          .split('\n')
          .map((l) => l.trim())
          .filter(Boolean);
        if (lines.join('').length > MEMORY_LIMITS[store])
          throw new Error(`over the ${MEMORY_LIMITS[store]}-character limit; nothing changed`);
        await clearMemory(db, store);
        for (const l of lines) await addMemory(db, store, l);
        process.stderr.write(`${store}: ${lines.length} entries\n`);
      });
    });
  memory
    .command('export')
    .description('write MEMORY.md and USER.md')
    .argument('[dir]', 'target directory, created if missing (default: <Herald home>/memory-export)')
    .action(async (target: string | undefined) => {
      const dir = resolve(target ?? join(config().home, 'memory-export'));
      await withDb(async (db) => {
        mkdirSync(dir, { recursive: true });
        for (const store of MEMORY_STORES) {
          const path = join(dir, `${store.toUpperCase()}.md`);
          writeFileSync(
            path,
            `# ${store.toUpperCase()}\n\n${(await listMemory(db, store)).map((e) => `- ${e.content}`).join('\n')}\n`,
          );
          process.stderr.write(`wrote ${path}\n`);
        }
      });
    });
}

function renderMemory(label: string, entries: MemoryEntry[], limit: number, screenFinding: ScreenFinding): string {
  const head = `${label} (${memoryChars(entries)} of ${limit} characters)`;
  return entries.length
    ? [
        head,
        ...entries.map((e, i) => {
          // Shown as stored; marked when new sessions' prompts leave it out (activities/prompt/system-prompt.ts).
          const rule = screenFinding(e.content, 'strict');
          const mark = rule
            ? pc.yellow(` [left out of system prompts: it looked like a prompt injection: ${rule}]`)
            : '';
          return `${String(i + 1).padStart(2)}. ${e.content}${mark}`;
        }),
      ].join('\n')
    : `${head}: empty`;
}
