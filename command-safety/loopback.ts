/**
 * Whether a URL or a bare host a command names is this machine, for the rules that let traffic to
 * a local server through (uploads of scratch files, DELETE to a dev server). Host names are read as
 * the URL parser reads them (case folded, `0x7f.1` normalised); `localhost`, `127.0.0.0/8`, `[::1]`
 * and `0.0.0.0` (which reaches this machine when connected to) are local.
 */
import { isLoopbackHost } from '../common/loopback.js';
import type { Word } from './shell.js';

/** The URL in an operand, with `http://` assumed for a bare host; undefined when it is none. */
export function urlOf(value: string): URL | undefined {
  try {
    return new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(value) ? value : `http://${value}`);
  } catch {
    return undefined;
  }
}

export function isLoopback(value: string): boolean {
  const url = urlOf(value);
  // 0.0.0.0 is no loopback address, but connecting to it reaches this machine.
  return url !== undefined && (isLoopbackHost(url.hostname) || url.hostname === '0.0.0.0');
}

/**
 * Operands that name a place on the network: a URL, a local host, a domain name (`evil.example/x`),
 * an address, or a word only known at run time (which may be any of them).
 */
export function networkOperands(words: readonly Word[]): Word[] {
  return words.filter(
    (w) =>
      w.value === null ||
      /^[a-z][a-z0-9+.-]*:\/\//i.test(w.value) ||
      /^(localhost|\[[\da-f:]+\]|[\w-]+(\.[\w-]+)*\.[a-z]{2,}|\d+(\.\d+){1,3})(:\d+)?(\/|$)/i.test(w.value),
  );
}

/** Every place on the network the words name is this machine, and they name one. */
export function onlyLoopback(words: readonly Word[]): boolean {
  const places = networkOperands(words);
  return places.length > 0 && places.every((w) => w.value !== null && isLoopback(w.value));
}
