/**
 * The supply chain, the part that reads values (the rest is rows in table/rows/supply-chain.ts):
 * code written into install-time files (`setup.py`, `conftest.py`, `*.pth`), `<manager> config set`
 * keys that change where packages come from, `--script-shell` and `--registry`, and pip or uv
 * installing from an index that is not PyPI.
 */
import type { Invocation, Rule, RuleContext } from '../invocation.js';
import { operands, optionValue } from '../options.js';
import type { Word } from '../shell.js';

const P = 'persist' as const;
const say = (ctx: RuleContext, inv: Invocation, rule: string, reason: string, at?: Array<Word | undefined>) =>
  ctx.add(inv, { group: P, rule, reason, ...(at ? { at: [inv.word, ...at] } : {}) });

/** Files install, test or start-up machinery runs as code: appending to one plants code. */
export const INSTALL_HOOK_FILE =
  /(^|\/)(setup\.py|conftest\.py|sitecustomize\.py|usercustomize\.py|[^/]+\.pth|build\.rs|binding\.gyp|\.pre-commit-config\.yaml|lefthook\.ya?ml|\.lintstagedrc[^/]*|Rakefile|Gemfile|noxfile\.py|tox\.ini)$/;

/** Code that runs a program or fetches something, in text written to such a file. */
const RUNS_SOMETHING =
  /\b(os\.system|os\.popen|subprocess|exec\s*\(|eval\s*\(|__import__|urllib|requests\.|socket\.|Command::new|std::process|curl|wget|child_process|system\s*\()|`/;

/** A redirection writing an install-time file: with code that runs commands (or text not shown), it persists. */
export function installHookWrite(ctx: RuleContext, inv: Invocation, target: Word, text: string | null): void {
  if (!INSTALL_HOOK_FILE.test(target.value ?? '')) return;
  if (text !== null && !RUNS_SOMETHING.test(text)) return;
  say(ctx, inv, 'install_hook_write', `writes code into ${target.value}, which installs, tests or start-up run`, [
    target,
  ]);
}

/** `<manager> config set KEY …` keys that change where packages come from, what is trusted, or what runs. */
const PACKAGE_CONFIG_KEY =
  /registry|index-url|extra-index-url|script-shell|proxy|node-options|global\.|trusted-host|prefix|yarnpath|npmregistryserver|unsafehttpwhitelist|strict-?ssl|enablestrictssl|^ca$|^cafile|cafilepath|^git$|^shell$|ignore-scripts|npmscopes|plugins?$|injectenvironmentfiles|^onload-script|^init-module|globalconfig|userconfig|^find-links|^no-verify|cert$/i;

export const packageConfig: Rule = (inv, ctx) => {
  const o = operands(inv.args).map((w) => w.value ?? '');
  const key = o[0] === 'config' && o[1] === 'set' ? o[2] : undefined;
  if (key && PACKAGE_CONFIG_KEY.test(key.split('=')[0]!))
    say(
      ctx,
      inv,
      'package_source',
      `${inv.name} config ${key}: changes where packages come from, what is trusted, or how scripts run`,
    );
  // `npm pkg set scripts.clean='rm -rf ~'`: the script npm will run is read as the shell reads it.
  if (o[0] === 'pkg' && o[1] === 'set')
    for (const w of inv.args) {
      const script = /^scripts\.[^=]+=([\s\S]+)$/.exec(w.value ?? '');
      if (script) ctx.script(inv, { ...w, value: script[1]! }, `${inv.name} pkg set writes a package script`);
    }
  // `npm --script-shell=/tmp/x.sh run build`: every script through another program.
  const shell = inv.args.find((w) => /^--script-shell(=|$)/.test(w.value ?? ''));
  if (shell)
    ctx.add(inv, {
      group: 'indirection',
      rule: 'code_in_environment',
      reason: `${inv.name} runs scripts through another shell`,
      at: [inv.word, shell],
    });
  const registry = optionValue(inv.args, undefined, ['--registry']);
  if (registry && !/^https:\/\/registry\.(npmjs\.org|yarnpkg\.com)\/?$/.test(registry))
    ctx.add(inv, {
      group: 'indirection',
      rule: 'package_source',
      reason: `${inv.name} installs from another registry (${registry})`,
    });
};

/** pip and uv installing from another index or link (dependency confusion: the same name, someone else's code). */
const TRUSTED_INDEX = /^https:\/\/(pypi\.org|files\.pythonhosted\.org|download\.pytorch\.org|pypi\.python\.org)(\/|$)/;

const pipSource: Rule = (inv, ctx) => {
  const a = inv.args;
  for (let i = 0; i < a.length; i++) {
    const v = a[i]!.value ?? '';
    const m = /^(--extra-index-url|--index-url|-i|--find-links|-f|--trusted-host)(?:=(.*))?$/.exec(v);
    if (!m) continue;
    const url = m[2] ?? a[i + 1]?.value ?? null;
    if (
      m[1] === '--trusted-host' ||
      url === null ||
      (!TRUSTED_INDEX.test(url) && !(/^-f|--find-links/.test(m[1]!) && !/^[a-z]+:\/\//.test(url)))
    )
      return ctx.add(inv, {
        group: 'indirection',
        rule: 'package_source',
        reason: `${inv.name} installs from ${url ?? 'an index only known at run time'} (not PyPI)`,
        at: [inv.word, a[i], a[i + 1]],
      });
  }
};

export const SUPPLY_CHAIN_RULES: Record<string, Rule> = {
  yarn: packageConfig,
  bun: packageConfig,
  pip: pipSource,
  pip3: pipSource,
  uv: pipSource,
  pipx: pipSource,
};
