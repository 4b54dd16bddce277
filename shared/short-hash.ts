/** A short, stable hash (16 hex digits of SHA-256): enough to tell calls and results apart, bounded in history. */
import { createHash } from 'node:crypto';

export function shortHash(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 16);
}
