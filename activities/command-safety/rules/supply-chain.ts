/**
 * The supply chain (group persist, and indirection for one-off sources): what later installs,
 * builds and commits will run or trust. Git hook installers (husky, pre-commit, lefthook),
 * package lifecycle scripts written with jq, code appended to install-time files (`setup.py`,
 * `conftest.py`, `*.pth`), and every way to point a package manager at another registry, proxy or
 * mirror, or to turn off its checks: `yarn config set yarnPath`, `bundle config mirror.*`, `go env
 * -w GOPROXY`, `composer config repositories.*`, `dotnet nuget add source`, `npm config set
 * strict-ssl false`, `pip install --extra-index-url`, `add-apt-repository`; and `ssh-import-id`,
 * which installs someone's SSH keys.
 */
import type { Invocation, Rule, RuleContext } from '../invocation.js';
import { operands, optionValue } from '../options.js';
import type { Word } from '../shell.js';

const P = 'persist' as const;
const say = (ctx: RuleContext, inv: Invocation, rule: string, reason: string, at?: Array<Word | undefined>) =>
  ctx.add(inv, { group: P, rule, reason, ...(at ? { at: [inv.word, ...at] } : {}) });

/** Hook installers: after them, every commit (or checkout, push) runs the hooks. */
const HOOK_INSTALLERS: Record<string, RegExp> = {
  husky: /^(init|install|add|set)?$/,
  'pre-commit': /^(install|install-hooks|init-templatedir)$/,
  lefthook: /^(install|add)$/,
  'simple-git-hooks': /^/,
  overcommit: /^--install$/,
  captainhook: /^(install|configure)$/,
  'git-hooks': /^install$/,
  yorkie: /^/,
};

const hookInstaller: Rule = (inv, ctx) => {
  const first =
    inv.args.find((w) => w.value === null || !w.value.startsWith('-') || inv.name === 'overcommit')?.value ?? '';
  if (first === null || HOOK_INSTALLERS[inv.name]!.test(first))
    say(ctx, inv, 'git_hook_install', `${inv.name} installs git hooks (they run on every commit)`);
};

/** jq and yq programs that assign into `.scripts` (install, prepare, test… scripts npm runs). */
const jsonEdit: Rule = (inv, ctx) => {
  const program = inv.args.find((w) => w.value === null || !w.value.startsWith('-'));
  const v = program?.value;
  if (v && /(\.scripts\b|\["scripts"\]|\bscripts\.)[^=|]*(\|=|\+=|(?<![=!<>])=(?!=))/.test(v))
    say(ctx, inv, 'lifecycle_script', `${inv.name} writes package scripts (npm runs them on install and use)`, [
      program,
    ]);
};

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

/** Bundler: `bundle config [set] [--global] mirror.https://rubygems.org URL`, `local.*`, `build.*`. */
const bundle: Rule = (inv, ctx) => {
  const o = operands(inv.args).map((w) => w.value ?? '');
  if (o[0] !== 'config') return;
  const key = o[1] === 'set' ? o[2] : o[1];
  if (key && /^(mirror\.|local\.|build\.|gems\.|BUNDLE_MIRROR|ssl_verify_mode|disable_checksum_validation)/i.test(key))
    say(ctx, inv, 'package_source', `bundle config ${key}: changes where gems come from or how they build`);
};

/** `go env -w GOPROXY=… GOFLAGS=… GONOSUMDB=… GOSUMDB=off`: every later go command uses them. */
const goEnv: Rule = (inv, ctx) => {
  const o = inv.args.map((w) => w.value ?? '');
  if (o[0] !== 'env' || !o.includes('-w')) return;
  const hit = o.find((v) =>
    /^(GOPROXY|GOFLAGS|GONOSUMDB|GONOSUMCHECK|GONOPROXY|GOSUMDB|GOINSECURE|GOPRIVATE|GOTOOLCHAIN|CC|CXX|GOEXPERIMENT|GOVCS|GOAUTH)=/.test(
      v,
    ),
  );
  if (hit)
    say(
      ctx,
      inv,
      'package_source',
      `go env -w ${hit.split('=')[0]}: changes where modules come from, what is checked or what runs`,
    );
};

/** `composer config [-g] repositories.x …`, `secure-http false`, `disable-tls true`. */
const composer: Rule = (inv, ctx) => {
  const o = operands(inv.args).map((w) => w.value ?? '');
  if (o[0] !== 'config') return;
  if (/^(repositories|repo)\b|^(secure-http|disable-tls|cafile|capath|allow-plugins)/.test(o[1] ?? ''))
    say(ctx, inv, 'package_source', `composer config ${o[1]}: changes where packages come from or what is trusted`);
};

/** `dotnet nuget add source URL`, `nuget sources add -Source URL`. */
const nuget: Rule = (inv, ctx) => {
  const o = operands(inv.args).map((w) => w.value ?? '');
  const at = o.indexOf('nuget');
  const rest = inv.name === 'dotnet' ? (at >= 0 ? o.slice(at + 1) : []) : o;
  if (
    (/^(add|update)$/.test(rest[0] ?? '') && rest[1] === 'source') ||
    (rest[0] === 'sources' && /^(add|update|enable)$/i.test(rest[1] ?? ''))
  )
    say(ctx, inv, 'package_source', 'adds a NuGet package source');
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

/** Repository tools of system package managers: a new source of root-installed packages. */
const systemSource: Rule = (inv, ctx) => {
  const a = inv.args.map((w) => w.value ?? '');
  const adds = /^(add-apt-repository|apt-add-repository)$/.test(inv.name)
    ? !a.some((v) => /^(-r|--remove|-L|--list)$/.test(v))
    : inv.name === 'apt-key'
      ? /^(add|adv)$/.test(operands(inv.args)[0]?.value ?? '')
      : inv.name === 'zypper'
        ? /^(ar|addrepo)$/.test(operands(inv.args)[0]?.value ?? '')
        : inv.name === 'yum-config-manager' || inv.name === 'dnf'
          ? a.includes('--add-repo') || a.some((v) => v.startsWith('--add-repo='))
          : inv.name === 'rpm'
            ? a.includes('--import')
            : inv.name === 'flatpak'
              ? operands(inv.args)[0]?.value === 'remote-add'
              : false;
  if (adds) say(ctx, inv, 'package_source', `${inv.name} adds a package source or signing key for the system`);
};

export const SUPPLY_CHAIN_RULES: Record<string, Rule> = {
  ...Object.fromEntries(Object.keys(HOOK_INSTALLERS).map((n) => [n, hookInstaller])),
  jq: jsonEdit,
  yq: jsonEdit,
  gojq: jsonEdit,
  jaq: jsonEdit,
  yarn: packageConfig,
  bun: packageConfig,
  bundle,
  bundler: bundle,
  go: goEnv,
  composer,
  dotnet: nuget,
  nuget,
  pip: pipSource,
  pip3: pipSource,
  uv: pipSource,
  pipx: pipSource,
  'add-apt-repository': systemSource,
  'apt-add-repository': systemSource,
  'apt-key': systemSource,
  zypper: systemSource,
  'yum-config-manager': systemSource,
  dnf: systemSource,
  rpm: systemSource,
  flatpak: systemSource,
  'ssh-import-id': (inv, ctx) => say(ctx, inv, 'ssh_key_install', 'installs someone’s SSH keys for login'),
  'ssh-import-id-gh': (inv, ctx) => say(ctx, inv, 'ssh_key_install', 'installs someone’s SSH keys for login'),
  'ssh-import-id-lp': (inv, ctx) => say(ctx, inv, 'ssh_key_install', 'installs someone’s SSH keys for login'),
};
