/**
 * Filler text that is not one unit over and over. The test stack's provider is `custom` on
 * loopback, a local endpoint, whose streams are cut when they loop (model-adapters/runaway.ts):
 * `'word '.repeat(n)` past 2,000 characters would be cut like a small model's loop.
 */
const WORDS = ['amber', 'brook', 'cedar', 'dune', 'ember', 'fjord', 'grove', 'heath', 'inlet', 'juniper', 'knoll'];

/** `chars` characters of words in a fixed pseudo-random order (the same text every run). */
export function variedText(chars: number, seed = 1): string {
  let state = seed >>> 0 || 1;
  const parts: string[] = [];
  let length = 0;
  while (length < chars) {
    state = (Math.imul(state, 1_103_515_245) + 12_345) >>> 0;
    const word = WORDS[(state >>> 16) % WORDS.length]!;
    parts.push(word);
    length += word.length + 1;
  }
  return parts.join(' ').slice(0, chars);
}
