/**
 * Config file errors a person can act on: the file, the key, the line with a caret under the
 * spot, and for an unknown key the closest known one ("did you mean maxIterations?"). YAML syntax
 * errors come from the `yaml` package with their position; schema errors (zod) are placed with
 * the document's own node ranges.
 */
import type { YAMLParseError } from 'yaml';
import { LineCounter, isMap, isScalar, parseDocument } from 'yaml';
import type { z } from 'zod';
import { closestKey } from '../shared/fuzzy.js';

/** The lines around `line` (1-based) with a caret under `col`, e.g. "  2 |   maxIteratons: 5\n    |   ^". */
export function snippet(text: string, line: number, col: number, before = 2): string {
  const lines = text.split(/\r?\n/);
  const first = Math.max(1, line - before);
  const width = String(line).length;
  const out: string[] = [];
  for (let n = first; n <= Math.min(line, lines.length); n++) {
    const l = lines[n - 1] ?? '';
    out.push(`  ${String(n).padStart(width)} | ${l.length > 200 ? `${l.slice(0, 199)}…` : l}`);
  }
  out.push(`  ${' '.repeat(width)} | ${' '.repeat(Math.max(0, Math.min(col - 1, 200)))}^`);
  return out.join('\n');
}

/** A YAML syntax error: its reason without the dangling "at line N, column M:", then where. */
export function describeYamlError(path: string, text: string, err: YAMLParseError): string {
  const reason = (err.message.split('\n')[0] ?? '').replace(/ at line \d+, column \d+:?$/, '');
  const pos = err.linePos?.[0];
  const where = pos ? ` (line ${pos.line}, column ${pos.col})\n${snippet(text, pos.line, pos.col)}` : '';
  return `config error in ${path}: not valid YAML: ${reason}${where}`;
}

/** A schema error: the key, the reason, a did-you-mean for an unknown key, and where in the file. */
export function describeSchemaIssue(
  path: string,
  text: string,
  issue: z.core.$ZodIssue,
  schema: z.ZodType,
): { key: string; message: string } {
  const at = issue.path.map(String);
  const key = at.join('.') || '(root)';
  let reason = issue.message;
  let offset: number | undefined;
  if (issue.code === 'unrecognized_keys') {
    const known = knownKeys(schema, at);
    const hints = issue.keys.map((k) => {
      const near = closestKey(k, known);
      return near ? `"${k}" (did you mean "${near}"?)` : `"${k}"`;
    });
    reason = `unknown key${issue.keys.length > 1 ? 's' : ''} ${hints.join(', ')}${known.length && !hints.some((h) => h.includes('did you mean')) ? `; known: ${known.join(', ')}` : ''}`;
    offset = keyOffset(text, at, issue.keys[0]);
  } else {
    offset = valueOffset(text, at);
  }
  const lc = new LineCounter();
  parseDocument(text, { lineCounter: lc });
  const pos = offset !== undefined ? lc.linePos(offset) : undefined;
  const where = pos ? ` (line ${pos.line}, column ${pos.col})\n${snippet(text, pos.line, pos.col)}` : '';
  return { key, message: `config error in ${path}: ${key}: ${reason}${where}` };
}

function keyOffset(text: string, at: string[], key: string | undefined): number | undefined {
  const doc = parseDocument(text);
  const node = at.length ? doc.getIn(at, true) : doc.contents;
  if (!isMap(node)) return undefined;
  const pair = node.items.find((p) => isScalar(p.key) && String(p.key.value) === key);
  return isScalar(pair?.key) ? pair.key.range?.[0] : undefined;
}

/** Where the value at `at` is; for a missing one, where its nearest present parent is. */
function valueOffset(text: string, at: string[]): number | undefined {
  const doc = parseDocument(text);
  for (let n = at.length; n > 0; n--) {
    const node = doc.getIn(at.slice(0, n), true) as { range?: [number, number, number] } | undefined;
    if (node?.range) return node.range[0];
  }
  return undefined;
}

interface Def {
  type?: string;
  shape?: Record<string, { _zod: { def: Def } }>;
  innerType?: { _zod: { def: Def } };
  valueType?: { _zod: { def: Def } };
  element?: { _zod: { def: Def } };
  in?: { _zod: { def: Def } };
}

/** The keys the schema knows for the object at `at` (empty when it is not a fixed object). */
export function knownKeys(schema: z.ZodType, at: string[]): string[] {
  let def: Def | undefined = (schema as unknown as { _zod: { def: Def } })._zod.def;
  const unwrap = (d: Def | undefined): Def | undefined => {
    let cur = d;
    for (let i = 0; i < 20 && cur; i++) {
      const next = cur.innerType ?? cur.in;
      if (!next) break;
      cur = next._zod.def;
    }
    return cur;
  };
  for (const seg of at) {
    def = unwrap(def);
    if (!def) return [];
    if (def.shape) def = def.shape[seg]?._zod.def;
    else if (def.valueType) def = def.valueType._zod.def;
    else if (def.element) def = def.element._zod.def;
    else return [];
  }
  def = unwrap(def);
  return def?.shape ? Object.keys(def.shape) : [];
}
