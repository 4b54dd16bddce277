/**
 * The redactor (docs/redaction.md): one function that every text leaving the worker for Temporal (results,
 * failures, search attributes, memo, details), Postgres, the event stream or the logs goes
 * through. It replaces the values the worker holds as secrets (named after their variable; which
 * values those are: shared/env-secrets.ts), in every form shared/secret-matcher.ts recognises,
 * and well-known secret shapes (named after the shape) with `[REDACTED:<name>]`. Pure; the worker
 * builds it from its environment and configuration (runtime/secrets.ts).
 */

import { MIN_SECRET_LENGTH, SecretMatcher } from './secret-matcher.js';

export interface SecretValue {
  /** What the redacted text says: the variable name, e.g. `OPENAI_API_KEY`. */
  name: string;
  value: string;
}

/** Secret shapes worth catching whoever holds them: provider keys, tokens, private keys. */
export const SECRET_SHAPES: ReadonlyArray<{ name: string; re: RegExp }> = [
  {
    name: 'private_key',
    re: /-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z0-9 ]*PRIVATE KEY-----|$)/g,
  },
  { name: 'anthropic_key', re: /\bsk-ant-[A-Za-z0-9_-]{16,}/g },
  { name: 'openai_key', re: /\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}/g },
  { name: 'github_token', re: /\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{40,})/g },
  { name: 'gitlab_token', re: /\bglpat-[A-Za-z0-9_-]{20,}/g },
  { name: 'slack_token', re: /\bxox[abposr]-[A-Za-z0-9-]{10,}/g },
  { name: 'aws_access_key', re: /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/g },
  { name: 'google_api_key', re: /\bAIza[0-9A-Za-z_-]{35}\b/g },
  { name: 'stripe_key', re: /\b(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{20,}/g },
  { name: 'npm_token', re: /\bnpm_[A-Za-z0-9]{36}\b/g },
  { name: 'huggingface_token', re: /\bhf_[A-Za-z0-9]{30,}\b/g },
  { name: 'jwt', re: /\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g },
  { name: 'bearer', re: /\b(Bearer|Token)\s+[A-Za-z0-9._~+/=-]{16,}/g },
  // postgres://user:password@host → the password only.
  { name: 'url_password', re: /\b([a-z][a-z0-9+.-]*:\/\/[^\s:/@]+:)[^\s@/]+(@)/gi },
];

export { MIN_SECRET_LENGTH } from './secret-matcher.js';

export class Redactor {
  private readonly secrets: readonly SecretValue[];
  private built: SecretMatcher | undefined;

  constructor(secrets: readonly SecretValue[] = []) {
    this.secrets = secrets.filter((s) => s.value.length >= MIN_SECRET_LENGTH);
  }

  /**
   * The index, built at the first text to redact: a CLI command that sends nothing (`herald
   * sessions`, `--help`) never pays for indexing every environment value, and a worker that adds
   * its secrets to a process's redactor builds it once, not once per install.
   */
  private get matcher(): SecretMatcher {
    return (this.built ??= new SecretMatcher(this.secrets));
  }

  /** How many runs of known secrets are indexed (memory; the benchmark reports it). */
  get indexed(): number {
    return this.matcher.size;
  }

  /**
   * The text with every known secret value — in any of the forms shared/secret-matcher.ts
   * recognises, whole or any run of 12 of its characters — replaced by `[REDACTED:<name>]`, then
   * every well-known secret shape by `[REDACTED:<shape>]`.
   */
  redact(text: string): string {
    if (text.length < MIN_SECRET_LENGTH) return text;
    let out = text;
    const found = outsideMarks(text, this.matcher.find(text));
    if (found.length) {
      let rebuilt = '';
      let at = 0;
      for (const m of found) {
        rebuilt += `${text.slice(at, m.start)}[REDACTED:${m.name}]`;
        at = m.end;
      }
      out = rebuilt + text.slice(at);
    }
    for (const { name, re } of SECRET_SHAPES) {
      re.lastIndex = 0;
      if (!re.test(out)) continue;
      re.lastIndex = 0;
      out =
        name === 'url_password'
          ? out.replace(re, (_m, head: string, at: string) => `${head}[REDACTED:${name}]${at}`)
          : name === 'bearer'
            ? out.replace(re, (_m, word: string) => `${word} [REDACTED:${name}]`)
            : out.replace(re, `[REDACTED:${name}]`);
    }
    return out;
  }

  /** Every string inside a JSON-like value redacted (objects and arrays copied, other values kept). */
  redactDeep<T>(value: T, depth = 0): T {
    if (typeof value === 'string') return this.redact(value) as T;
    if (depth > 20 || value === null || typeof value !== 'object') return value;
    if (Array.isArray(value)) return (value as unknown[]).map((v) => this.redactDeep(v, depth + 1)) as T;
    if (Object.getPrototypeOf(value) !== Object.prototype) return value;
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) out[k] = this.redactDeep(v, depth + 1);
    return out as T;
  }

  /**
   * How much of the end of `text` to hold back in a stream because a secret may continue in the
   * next chunk: an unfinished private key block, a trailing run of token characters that holds (or
   * may become) a secret shape, or the longest tail that is part of a known value (in any form;
   * `before`, the text already released, tells whether the tail continues one).
   * Ordinary words pass at once, so streaming stays prompt.
   */
  holdBack(text: string, before = ''): number {
    let hold = 0;
    const begin = text.lastIndexOf('-----BEGIN');
    if (begin >= 0 && text.indexOf('-----END', begin) < 0 && text.length - begin < 16_384) hold = text.length - begin;
    const run = /[A-Za-z0-9._~+/=:@-]+$/.exec(text)?.[0] ?? '';
    if (run.length > hold && run.length < 1024) {
      const before = text.slice(0, text.length - run.length);
      if (/\b(?:Bearer|Token)\s*$/.test(before) || /\b(?:Bearer|Token)$/.test(run) || mayHoldShape(run))
        hold = run.length;
    }
    return Math.max(hold, this.matcher.heldTail(text, before));
  }
}

/** Finds that lie inside an earlier `[REDACTED:<name>]` are left alone: redacting twice changes nothing. */
function outsideMarks<T extends { start: number; end: number }>(text: string, found: T[]): T[] {
  if (!found.length || !text.includes('[REDACTED:')) return found;
  const marks = [...text.matchAll(/\[REDACTED:[A-Za-z0-9_]+\]/g)].map((m) => [m.index, m.index + m[0].length]);
  return found.filter((f) => !marks.some(([a, b]) => f.start >= a! && f.end <= b!));
}

/** How the shapes above begin: a run of token characters that contains one, or ends in the start of one, is held. */
const SHAPE_PREFIXES = [
  'sk-',
  'sk_',
  'rk_',
  'ghp_',
  'gho_',
  'ghu_',
  'ghs_',
  'ghr_',
  'github_pat_',
  'glpat-',
  'xox',
  'AKIA',
  'ASIA',
  'AIza',
  'npm_',
  'hf_',
  'eyJ',
  '://',
];

function mayHoldShape(run: string): boolean {
  for (const p of SHAPE_PREFIXES) {
    if (run.includes(p)) return true;
    for (let n = Math.min(p.length - 1, run.length); n > 1; n--) if (run.endsWith(p.slice(0, n))) return true;
  }
  return false;
}

/** Redacts text as it streams: what it returns can be published, the rest waits for more. */
export class StreamRedactor {
  private pending = '';
  /** The end of what was let through (kept here only): whether the next chunk continues a secret. */
  private released = '';
  constructor(private readonly redactor: Redactor) {}

  push(chunk: string): string {
    this.pending += chunk;
    const hold = this.redactor.holdBack(this.pending, this.released);
    const ready = this.pending.slice(0, this.pending.length - hold);
    this.pending = this.pending.slice(this.pending.length - hold);
    if (ready) this.released = (this.released + ready).slice(-64);
    return this.redactor.redact(ready);
  }

  flush(): string {
    const rest = this.redactor.redact(this.pending);
    this.pending = '';
    this.released = '';
    return rest;
  }
}
