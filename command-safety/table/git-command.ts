/**
 * Reading a git command line the way git does, for the git rows (table/rows/git.ts) and what git
 * runs (rules/git.ts): where the subcommand starts after git's own options (`-C dir`, `-c k=v`,
 * `--git-dir x`), and every configuration setting the line gives — `-c k=v`, `GIT_CONFIG_KEY_n`
 * and `GIT_CONFIG_PARAMETERS` in its environment, `clone|fetch|pull|ls-remote -c|--config k=v`,
 * and the key and value of `git config`. Pure: words in, words out.
 */
import type { Invocation } from '../invocation.js';
import { operands, optionWords } from '../options.js';
import type { Word } from '../shell.js';
import { PLAIN_PROGRAM } from '../rules/code.js';

/**
 * git's own options that take the next word as their value (git matches them exactly, no
 * abbreviations). `--exec-path` without `=` prints a path and exits, so reading the next word as
 * its value can only hide a subcommand git never runs; any other option git does not know stops git.
 */
const GLOBAL_VALUED = new Set([
  '-C',
  '-c',
  '--git-dir',
  '--work-tree',
  '--namespace',
  '--super-prefix',
  '--config-env',
  '--attr-source',
  '--exec-path',
]);

/** The index of the subcommand word (args.length when there is none): the first word that is not git's own option. */
export function gitSubcommandAt(args: readonly Word[]): number {
  let i = 0;
  for (; i < args.length; i++) {
    const v = args[i]!.value;
    if (v === null || !v.startsWith('-')) break;
    if (GLOBAL_VALUED.has(v.split('=')[0]!) && !v.includes('=')) i++;
  }
  return Math.min(i, args.length);
}

/** One configuration setting of the line: its key as written, its value (a missing value is ''), the word that gave it. */
export interface GitSetting {
  key: string;
  value: Word | undefined;
  at: Word;
  /** Given for this one command (`-c`, environment, `clone -c`) rather than written to a config file. */
  oneShot: boolean;
}

const setting = (kv: string, at: Word): GitSetting => {
  const eq = kv.indexOf('=');
  return {
    key: eq < 0 ? kv : kv.slice(0, eq),
    value: { ...at, value: eq < 0 ? '' : kv.slice(eq + 1) },
    at,
    oneShot: true,
  };
};

/** `git config` options that only read (and `git config get|list`). */
export const CONFIG_READS = /^(--(get|get-all|get-regexp|get-urlmatch|list|show-origin|show-scope|name-only)|-l)$/;

export function configReadsOnly(rest: readonly Word[]): boolean {
  const ops = operands(rest);
  return optionWords(rest).some((o) => CONFIG_READS.test(o)) || ['get', 'list'].includes(ops[0]?.value ?? '');
}

/** The key and value words `git config` writes (after the subcommand word), or undefined when it only reads. */
export function configWrite(rest: readonly Word[]): { key: Word; value: Word | undefined } | undefined {
  if (configReadsOnly(rest)) return undefined;
  // The value of `--file x` / `-f x` / `--blob x` is not the key.
  const valued = rest.findIndex((w) => /^(--file|-f|--blob|--type|--default|--comment)$/.test(w.value ?? ''));
  const words = operands(rest.filter((_w, k) => k !== valued + 1 || valued < 0)).filter(
    (w) => !['set', 'unset', 'add'].includes(w.value ?? ''),
  );
  return words[0] ? { key: words[0], value: words[1] } : undefined;
}

/**
 * Every setting the line gives this git command, in the order git reads them. A key only known at
 * run time is left out here (rules/git.ts asks about it).
 */
export function gitSettings(inv: Invocation): readonly GitSetting[] {
  let out = settingsOf.get(inv);
  if (!out) settingsOf.set(inv, (out = readSettings(inv)));
  return out;
}

/** Several rows and rules/git.ts ask about one invocation: read its settings once. */
const settingsOf = new WeakMap<Invocation, GitSetting[]>();

function readSettings(inv: Invocation): GitSetting[] {
  const out: GitSetting[] = [];
  const env = new Map(inv.env.map((e) => [e.name, e.value]));
  for (const [name, w] of env) {
    const m = /^GIT_CONFIG_KEY_(\d+)$/.exec(name);
    if (m && w.value !== null) out.push(setting(`${w.value}=${env.get(`GIT_CONFIG_VALUE_${m[1]}`)?.value ?? ''}`, w));
    if (name === 'GIT_CONFIG_PARAMETERS' && w.value !== null)
      for (const p of w.value.matchAll(/'((?:[^'\\]|\\.)*)'/g)) out.push(setting(p[1]!, w));
  }
  const a = inv.args;
  const at = gitSubcommandAt(a);
  for (let i = 0; i < at; i++) {
    const kv = a[i + 1]?.value;
    if (a[i]!.value === '-c' && kv !== null && kv !== undefined) out.push(setting(kv, a[i + 1]!));
  }
  const sub = a[at]?.value;
  const rest = a.slice(at + 1);
  // `clone -c k=v`, `--config k=v`, and attached: `--config=k=v`, `-ck=v`.
  if (sub === 'clone' || sub === 'fetch' || sub === 'pull' || sub === 'ls-remote')
    for (let k = 0; k < rest.length; k++) {
      const v = rest[k]!.value ?? '';
      if (v === '--') break;
      if (/^(-c|--config)$/.test(v) && rest[k + 1]?.value) out.push(setting(rest[k + 1]!.value!, rest[k + 1]!));
      const attached = /^(?:--config=|-c)(.+)$/.exec(v)?.[1];
      if (attached && v !== '--config') out.push(setting(attached, rest[k]!));
    }
  if (sub === 'config') {
    const w = configWrite(rest);
    if (w?.key.value) out.push({ key: w.key.value, value: w.value, at: w.key, oneShot: false });
  }
  return out;
}

/** The value a one-shot setting of this key (lower-cased, exact) has, if the line gives one. */
export function oneShotValue(inv: Invocation, key: string): string | undefined {
  let v: string | undefined;
  for (const s of gitSettings(inv)) if (s.oneShot && s.key.toLowerCase() === key) v = s.value?.value ?? '';
  return v;
}

// ---------------------------------------------------------------------------------------------
// What a setting does

/** Config keys (subsections as `*`) that make git run a program, or fetch code from elsewhere. */
export const GIT_EXEC_KEY =
  /^(core\.(fsmonitor|hookspath|sshcommand|pager|editor|askpass|gitproxy|worktree)|sequence\.editor|diff\.external|diff\.\*\.(textconv|command)|merge\.\*\.driver|filter\.\*\.(clean|smudge|process)|credential(\.\*)?\.helper|gpg(\.\*)?\.program|uploadpack\.packobjectshook|alias\..+|include\.path|includeif\.\*\.path|pager\..+|interactive\.difffilter|remote\.\*\.(uploadpack|receivepack|proxy)|init\.templatedir|url\.\*\.(insteadof|pushinsteadof)|(browser|man)\.\*\.(cmd|path)|web\.browser|core\.attributesfile|mergetool\.\*\.cmd|difftool\.\*\.cmd|protocol\.\*\.allow|protocol\.allow|core\.sshcommand)$/;

/**
 * Keys that change where git sends traffic or whom it trusts (`http.proxy`, `http.sslVerify
 * false`), and keys that make ordinary commands destroy (`remote.origin.mirror`, a `+` push
 * refspec that forces every push, `clean.requireForce false`).
 */
const GIT_TRUST_KEY =
  /^(https?(\.\*)?\.(proxy|sslverify|sslcainfo|sslcapath|sslbackend|sslcert|sslkey|extraheader|cookiefile|emptyauth|followredirects)|core\.(askpass|sshcommand)|gpg\.program)$/;
const GIT_DESTROY_KEY =
  /^(remote\.\*\.(mirror|push)|clean\.requireforce|receive\.denydeletes|receive\.denynonfastforwards|gc\.(pruneexpire|reflogexpire|reflogexpireunreachable)|core\.bare|core\.worktree)$/;

const OFF = /^(false|no|off|0)$/i;

/** `core.hooksPath` → `core.hookspath`; `filter.lfs.clean` → `filter.*.clean`. */
export function gitKeyPattern(key: string): string {
  const parts = key.split('.');
  if (parts.length >= 3) return `${parts[0]!.toLowerCase()}.*.${parts[parts.length - 1]!.toLowerCase()}`;
  return key.toLowerCase();
}

const keyIs = (key: string, re: RegExp) => re.test(gitKeyPattern(key)) || re.test(key.toLowerCase());

/** The setting changes where git sends traffic or which servers it trusts. */
export function trustSetting(s: GitSetting): boolean {
  return (
    keyIs(s.key, GIT_TRUST_KEY) &&
    !(/sslverify/.test(gitKeyPattern(s.key)) && /^(true|yes|on|1)$/i.test(s.value?.value ?? ''))
  );
}

/** The setting makes later commands delete or force-overwrite refs or files. */
export function destroySetting(s: GitSetting): boolean {
  const k = gitKeyPattern(s.key);
  const v = s.value?.value;
  if (k === 'remote.*.mirror') return !OFF.test(v ?? '');
  if (k === 'remote.*.push') return !v || /^[+:]/.test(v);
  if (k === 'clean.requireforce' || /^receive\.deny/.test(k)) return OFF.test(v ?? '');
  return keyIs(s.key, GIT_DESTROY_KEY);
}

/** The setting makes git run a program or fetch from elsewhere (a plain, well-known editor or pager is everyday). */
export function execSetting(s: GitSetting): boolean {
  if (!keyIs(s.key, GIT_EXEC_KEY)) return false;
  return !(/editor$|pager/.test(gitKeyPattern(s.key)) && PLAIN_PROGRAM.test(s.value?.value ?? ''));
}

/** The command text an exec setting's value is (`alias.x=!cmd`, `core.pager=cmd`), for reading as a script. */
export function settingScript(s: GitSetting): Word | undefined {
  const k = gitKeyPattern(s.key);
  const v = s.value?.value;
  if (!v || !execSetting(s)) return undefined;
  if (
    k.startsWith('alias.')
      ? !v.startsWith('!')
      : !/^(core\.(sshcommand|pager|editor|fsmonitor)|sequence\.editor|pager\..+)$/.test(k)
  )
    return undefined;
  return { ...s.value!, value: v.replace(/^!/, '') };
}
