/**
 * The forms a known secret value is recognised in (docs/redaction.md): the value itself, reversed,
 * percent-encoded (which is also quoted-printable once the matcher drops `%`/`=`), HTML-escaped,
 * hex of its UTF-8 bytes, and base64 of them at each of the three byte alignments a value can
 * have inside a longer encoded blob. Case, whitespace, zero-width characters, punctuation and the
 * base64 alphabet (standard or URL-safe, padded or not) are the matcher's business
 * (shared/secret-matcher.ts). Pure: no Buffer, so any module may use it.
 */

export type VariantKind = 'plain' | 'reversed' | 'percent' | 'html' | 'hex' | 'base64';

export interface SecretVariant {
  kind: VariantKind;
  text: string;
}

const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

function utf8(s: string): number[] {
  const out: number[] = [];
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    if (c < 0x80) out.push(c);
    else if (c < 0x800) out.push(0xc0 | (c >> 6), 0x80 | (c & 63));
    else if (c < 0x10000) out.push(0xe0 | (c >> 12), 0x80 | ((c >> 6) & 63), 0x80 | (c & 63));
    else out.push(0xf0 | (c >> 18), 0x80 | ((c >> 12) & 63), 0x80 | ((c >> 6) & 63), 0x80 | (c & 63));
  }
  return out;
}

/**
 * The base64 characters that depend on the value's bytes alone when the value starts `offset`
 * bytes (0, 1 or 2) into a 3-byte group: the characters at either end that mix in unknown
 * neighbouring bytes are left out, so the result is found inside any blob that holds the value.
 */
export function base64Core(bytes: readonly number[], offset: 0 | 1 | 2): string {
  const bits: number[] = [];
  for (let i = 0; i < offset; i++) bits.push(0, 0, 0, 0, 0, 0, 0, 0);
  for (const b of bytes) for (let k = 7; k >= 0; k--) bits.push((b >> k) & 1);
  const first = offset * 8;
  const last = first + bytes.length * 8;
  let out = '';
  for (let j = 0; (j + 1) * 6 <= bits.length; j++) {
    if (j * 6 < first || (j + 1) * 6 > last) continue;
    let v = 0;
    for (let k = 0; k < 6; k++) v = (v << 1) | bits[j * 6 + k]!;
    out += B64[v];
  }
  return out;
}

function hex(bytes: readonly number[]): string {
  return bytes.map((b) => b.toString(16).padStart(2, '0')).join('');
}

function htmlEscape(s: string): string {
  return s
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

function percentEncode(s: string): string {
  // Every byte outside [A-Za-z0-9]: what encodeURIComponent leaves (-_.!~*'()) is dropped by
  // the matcher anyway, and quoted-printable's `=XX` reads the same once `=` is dropped.
  return utf8(s)
    .map((b) =>
      /[A-Za-z0-9]/.test(String.fromCharCode(b)) ? String.fromCharCode(b) : `%${b.toString(16).padStart(2, '0')}`,
    )
    .join('');
}

/** Every form of `value` the redactor looks for (distinct texts only). */
export function secretVariants(value: string): SecretVariant[] {
  const bytes = utf8(value);
  const out: SecretVariant[] = [
    { kind: 'plain', text: value },
    { kind: 'reversed', text: [...value].reverse().join('') },
    { kind: 'percent', text: percentEncode(value) },
    { kind: 'html', text: htmlEscape(value) },
    { kind: 'hex', text: hex(bytes) },
    { kind: 'base64', text: base64Core(bytes, 0) },
    { kind: 'base64', text: base64Core(bytes, 1) },
    { kind: 'base64', text: base64Core(bytes, 2) },
  ];
  const seen = new Set<string>();
  return out.filter((v) => v.text.length > 0 && !seen.has(v.text) && (seen.add(v.text), true));
}
