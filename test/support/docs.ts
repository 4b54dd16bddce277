/**
 * Herald's documentation as the doc tests read it: the README and every page of docs/, in the order
 * a reader meets them (the README's examples first, then each page as the README's table lists it),
 * so an example may build on an earlier one, as it would when followed by hand.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../../runtime/paths.js';

/** Pages whose examples run first, in this order; every other page follows, sorted by name. */
const READING_ORDER = [
  'README.md',
  'docs/running.md',
  'docs/providers.md',
  'docs/human-control.md',
  'docs/temporal-cli.md',
  'docs/cli.md',
  'docs/web-ui.md',
  'docs/encryption.md',
  'docs/configuration.md',
  'docs/tools.md',
  'docs/mcp.md',
  'docs/skills.md',
  'docs/tool-sandbox.md',
  'docs/command-safety.md',
  'docs/checkpoints.md',
  // Last: its scheduled run leaves a session that other pages' listings would show.
  'docs/schedules.md',
];

function markdownUnder(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(join(PROJECT_ROOT, dir), { withFileTypes: true })) {
    const rel = `${dir}/${name.name}`;
    if (name.isDirectory()) out.push(...markdownUnder(rel));
    else if (name.name.endsWith('.md')) out.push(rel);
  }
  return out;
}

/** Every documentation file, repository-relative, in reading order. */
export function docFiles(): string[] {
  const rest = markdownUnder('docs')
    .filter((f) => !READING_ORDER.includes(f))
    .sort();
  return [...READING_ORDER.filter((f) => existsSync(join(PROJECT_ROOT, f))), ...rest];
}

export function readDoc(file: string): string {
  return readFileSync(join(PROJECT_ROOT, file), 'utf8');
}

/** All documentation as one text (for checks that look for one example wherever it lives). */
export function allDocs(): string {
  return docFiles()
    .map((f) => readDoc(f))
    .join('\n');
}
