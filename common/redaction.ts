/**
 * The redactor (docs/tool-sandbox.md): one function that every text leaving the worker for Temporal, Postgres,
 * the event stream or the logs goes through. It replaces the values of the credentials the worker
 * holds (named after their variable) and well-known secret shapes (named after the shape) with
 * `[REDACTED:<name>]`. Pure; the worker builds it from its environment and configuration
 * (`activities/secrets.ts`).
 */

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

/** Values shorter than this are not treated as secrets (they would match everywhere). */
export const MIN_SECRET_LENGTH = 8;

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

export class Redactor {
  private readonly values: RegExp | undefined;
  private readonly names = new Map<string, string>();
  /** The longest known value: how much of a stream's tail may still be the start of one. */
  readonly longest: number;

  constructor(secrets: readonly SecretValue[] = []) {
    const usable = secrets.filter((s) => s.value.length >= MIN_SECRET_LENGTH);
    for (const s of usable) if (!this.names.has(s.value)) this.names.set(s.value, s.name);
    const sorted = [...this.names.keys()].sort((a, b) => b.length - a.length);
    this.values = sorted.length ? new RegExp(sorted.map(escapeRegExp).join('|'), 'g') : undefined;
    this.longest = sorted[0]?.length ?? 0;
  }

  /** The text with every secret replaced by `[REDACTED:<name>]`. */
  redact(text: string): string {
    if (text.length < MIN_SECRET_LENGTH) return text;
    let out = this.values ? text.replace(this.values, (v) => `[REDACTED:${this.names.get(v) ?? 'secret'}]`) : text;
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
   * may become) a secret shape, or the longest suffix that starts a known value. Ordinary words
   * pass at once, so streaming stays prompt.
   */
  holdBack(text: string): number {
    let hold = 0;
    const begin = text.lastIndexOf('-----BEGIN');
    if (begin >= 0 && text.indexOf('-----END', begin) < 0 && text.length - begin < 16_384) hold = text.length - begin;
    const run = /[A-Za-z0-9._~+/=:@-]+$/.exec(text)?.[0] ?? '';
    if (run.length > hold && run.length < 1024) {
      const before = text.slice(0, text.length - run.length);
      if (/\b(?:Bearer|Token)\s*$/.test(before) || /\b(?:Bearer|Token)$/.test(run) || mayHoldShape(run))
        hold = run.length;
    }
    for (const v of this.names.keys()) {
      for (let i = Math.max(0, text.length - (v.length - 1)); i < text.length - hold; i++) {
        if (text.charCodeAt(i) !== v.charCodeAt(0)) continue;
        if (v.startsWith(text.slice(i))) {
          hold = text.length - i;
          break;
        }
      }
    }
    return hold;
  }
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
  constructor(private readonly redactor: Redactor) {}

  push(chunk: string): string {
    this.pending += chunk;
    const hold = this.redactor.holdBack(this.pending);
    const ready = this.pending.slice(0, this.pending.length - hold);
    this.pending = this.pending.slice(this.pending.length - hold);
    return this.redactor.redact(ready);
  }

  flush(): string {
    const rest = this.redactor.redact(this.pending);
    this.pending = '';
    return rest;
  }
}
