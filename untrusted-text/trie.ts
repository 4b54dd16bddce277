/**
 * Phrase lists as one trie-shaped regex: the engine under the multilingual rule family and the
 * rules kept as data (rule-data.ts). At each position of the text the regex tries one branch per
 * first character, not every phrase, so thousands of phrases cost about as much as a few.
 * Phrases are normalised like the text (injection-text.ts), so they are written in their ordinary
 * spelling; `word*` is a stem (any ending).
 */
import { normalise } from './injection-text.js';

/** Scripts whose words need a boundary before them (CJK and Thai run words together). */
const SPACED = /^[a-z\u00c0-\u024f\u0400-\u04ff]/;
/** A phrase with CJK in it (`apiキー`) runs into the next word: no boundary after it. */
const CJK = /[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7a3]/;
interface TrieNode {
  next: Map<string, TrieNode>;
  /** undefined: no phrase ends here; 'word': one ends with a word boundary; 'stem': one ends anywhere. */
  end?: 'word' | 'stem';
}

const escapeChar = (c: string) => c.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * A trie as a regex: each position tries one branch per first character, not every phrase. At the
 * root, `guard` follows the first character (a boundary check there costs nothing at positions
 * where no phrase starts, unlike a lookbehind tried at every position).
 */
function emit(node: TrieNode, guard = ''): string {
  const alts = [...node.next].map(([c, child]) => {
    let chain = escapeChar(c) + guard;
    let n = child;
    while (n.next.size === 1 && !n.end) {
      const [c2, n2] = [...n.next][0]!;
      chain += escapeChar(c2);
      n = n2;
    }
    return chain + emit(n);
  });
  // Longer phrases first; then the phrase that ends here.
  if (node.end === 'stem') alts.push('');
  else if (node.end === 'word') alts.push('(?![\\p{L}\\p{N}])');
  if (alts.length === 0) return '';
  if (alts.length === 1) return alts[0]!;
  return `(?:${alts.join('|')})`;
}

function trie(words: Iterable<[string, 'word' | 'stem']>, guard = ''): string {
  const root: TrieNode = { next: new Map() };
  for (const [w, end] of words) {
    let node = root;
    for (const c of w) {
      let child = node.next.get(c);
      if (!child) node.next.set(c, (child = { next: new Map() }));
      node = child;
    }
    if (node.end !== 'stem') node.end = end;
  }
  return emit(root, guard);
}

/**
 * Phrases, normalised, as one trie-shaped regex; `word*` is a stem (any ending). Words of spaced
 * scripts need a boundary on both sides; CJK and Thai phrases match anywhere.
 */
export function phrases(list: readonly string[], boundaryOnce = false): string {
  const spaced: Array<[string, 'word' | 'stem']> = [];
  const unspaced: Array<[string, 'word' | 'stem']> = [];
  for (const p of list) {
    const stem = p.endsWith('*');
    const n = normalise(stem ? p.slice(0, -1) : p);
    if (SPACED.test(n) && !CJK.test(n)) spaced.push([n, stem ? 'stem' : 'word']);
    else unspaced.push([n, 'stem']);
  }
  const parts = [];
  if (spaced.length)
    parts.push(boundaryOnce ? `(?<![\\p{L}\\p{N}_])${trie(spaced)}` : trie(spaced, '(?<![\\p{L}\\p{N}_].)'));
  if (unspaced.length) parts.push(trie(unspaced));
  return `(?:${parts.join('|')})`;
}
