/**
 * Tool names the model sees: `mcp_<server>_<tool>`, made to fit the providers' rule
 * (`^[a-zA-Z0-9_-]{1,64}$`): other characters become `_`, a long name is cut and given a short
 * hash, and two tools that would get the same name are told apart by a hash suffix. The way back
 * is never parsed from the name: each exposed name maps to its schema row (server, tool).
 */
import { createHash } from 'node:crypto';

const hash8 = (text: string) => createHash('sha256').update(text).digest('hex').slice(0, 8);

export function sanitiseToolName(raw: string): string {
  const clean = raw.replace(/[^a-zA-Z0-9_-]/g, '_');
  return clean.length <= 64 ? clean : `${clean.slice(0, 55)}_${hash8(raw)}`;
}

/** Exposed names for (server, tool) pairs, in order, unique among themselves and `taken`. */
export function exposedNames(
  pairs: ReadonlyArray<{ server: string; tool: string }>,
  taken: Iterable<string> = [],
): string[] {
  const used = new Set(taken);
  return pairs.map(({ server, tool }) => {
    let name = sanitiseToolName(`mcp_${server}_${tool}`);
    if (used.has(name)) name = `${name.slice(0, 55)}_${hash8(`${server}\u0000${tool}`)}`;
    for (let i = 2; used.has(name); i++) name = `${name.slice(0, 60)}_${i}`;
    used.add(name);
    return name;
  });
}
