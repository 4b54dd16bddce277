/**
 * Every piece of text in a value — strings as they are, byte arrays (Temporal payloads) decoded,
 * numbers and booleans written out — for tests that search a history, a row or a log for a secret.
 */
export function allText(value: unknown, out: string[] = [], depth = 0): string[] {
  if (depth > 60 || value === null || value === undefined) return out;
  if (typeof value === 'string') out.push(value);
  else if (value instanceof Uint8Array) out.push(Buffer.from(value).toString('utf8'));
  else if (Array.isArray(value)) for (const v of value) allText(v, out, depth + 1);
  else if (typeof value === 'object') for (const v of Object.values(value)) allText(v, out, depth + 1);
  else if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint')
    out.push(String(value));
  return out;
}
