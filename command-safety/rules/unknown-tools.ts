/**
 * Tools Herald has no rules for. Many commands are shaped `tool [options] NOUN… VERB …`, so what a
 * tool does can be read from its verbs without knowing the tool: a destructive verb in subcommand
 * position (`zfs destroy`, `rabbitmqctl purge_queue`, `wal-g delete`, `govc vm.destroy`) or a
 * destructive option (`mongoimport --drop`, `pg_restore --clean`, `7z a -sdel`) destroys
 * something; a publishing verb (`maturin publish`, `lein deploy`, `cabal upload`) ships it.
 * Package managers removing packages from the workspace, and dry runs, stay everyday. An unknown
 * tool whose first operands are a command (`firejail rm -rf /`) is read as a runner
 * (unknown-runner.ts).
 */
import type { Group } from '../verdict.js';
import type { Invocation, Rule, RuleContext } from '../invocation.js';
import type { Word } from '../shell.js';
import { DATA_LIKE } from './unknown-runner.js';

const I = 'destroy_infrastructure' as const;
const D = 'destroy_data' as const;
const H = 'destroy_history' as const;

/** Verbs that destroy or reset what a tool manages, and what that destroys. */
export const DESTROY_VERBS: Record<string, Group> = {
  delete: I,
  destroy: I,
  drop: D,
  purge: D,
  wipe: I,
  nuke: I,
  erase: I,
  expunge: D,
  truncate: D,
  terminate: I,
  unregister: I,
  deregister: I,
  deprovision: I,
  decommission: I,
  deallocate: I,
  teardown: I,
  abandon: H,
  strip: H,
  obliterate: H,
  flushall: D,
  flushdb: D,
  reset: I,
  rollback: I,
  uninstall: I,
  prune: I,
  revoke: I,
};

/** Verbs that put something in front of the world. */
const PUBLISH_VERBS = new Set(['publish', 'unpublish', 'release', 'upload', 'deploy', 'push', 'yank']);

/** Options that destroy what the tool works on (`mongoimport --drop`, `pg_restore --clean`, `7z -sdel`). */
const DESTROY_OPTIONS: Record<string, Group> = {
  '--delete': I,
  '--delete-all': I,
  '--force-delete': I,
  '--drop': D,
  '--drop-all': D,
  '--drop-database': D,
  '--purge': D,
  '--purge-all': D,
  '--truncate': D,
  '--wipe': I,
  '--wipe-all': I,
  '--wipe-data': I,
  '--destroy': I,
  '--erase': I,
  '--erase-all': I,
  '--nuke': I,
  '--prune': I,
  '--unregister': I,
  '--remove-files': 'destroy_files',
  '--remove-source-files': 'destroy_files',
  '-sdel': 'destroy_files',
};

/** Options that publish (`rush publish --publish`, `xcrun altool --upload-app`). */
const PUBLISH_OPTIONS = /^--(publish|upload|upload-app|upload-package|deploy|push)$/;

/** Options that say nothing will happen. */
const DRY_RUN = /^--(dry-?run|what-?if|simulate|noop|no-op|help|version|list)(=true)?$|^-h$/;

/**
 * Package and toolchain managers: their uninstall, remove, prune and purge work on the workspace
 * or the user's own tools (system package managers have their own rules).
 */
const PACKAGE_MANAGERS = new Set([
  'npm',
  'pnpm',
  'yarn',
  'bun',
  'pip',
  'pip3',
  'pipx',
  'uv',
  'poetry',
  'pdm',
  'hatch',
  'rye',
  'pipenv',
  'cargo',
  'gem',
  'bundle',
  'bundler',
  'composer',
  'conda',
  'mamba',
  'micromamba',
  'go',
  'dotnet',
  'nuget',
  'nvm',
  'fnm',
  'volta',
  'asdf',
  'mise',
  'rtx',
  'sdk',
  'rbenv',
  'pyenv',
  'nodenv',
  'goenv',
  'jenv',
  'rustup',
  'vcpkg',
  'conan',
  'deno',
  'opam',
  'luarocks',
  'nimble',
  'cabal',
  'stack',
  'raco',
  'jupyter',
  'pre-commit',
  'husky',
  'krew',
  'code',
  'codium',
  'cursor',
  'corepack',
  'nix-env',
  'nix',
  'home-manager',
  'cpanm',
  'pub',
  'dart',
  'flutter',
  'elm',
  'spago',
  'pod',
  'carthage',
  'swift',
  'mint',
  'sdkmanager',
  'nx',
  'turbo',
  'lerna',
  'jest',
  'vitest',
  // Device and simulator tools: their erase, delete and uninstall act on a test device.
  'simctl',
  'adb',
  'emulator',
  'avdmanager',
  'devicectl',
]);

/** Version control tools: their `push` is a `git push`, their `strip`/`abandon` history their own rules judge. */
const VCS_LIKE = new Set([
  'hg',
  'jj',
  'sl',
  'bzr',
  'brz',
  'fossil',
  'pijul',
  'darcs',
  'dvc',
  'git-lfs',
  'git-annex',
  'datalad',
  'yadm',
  'vcsh',
  'stg',
  'quilt',
  'guilt',
  'adb',
  'git-town',
]);

/** Tools whose operands are text, patterns or data (`sd 'delete' 'remove' file.txt`). */
const TEXT_TOOLS = new Set([
  'sd',
  'tr',
  'xsv',
  'mlr',
  'csvcut',
  'csvgrep',
  'csvlook',
  'csvstat',
  'tldr',
  'cheat',
  'fzf',
  'figlet',
  'cowsay',
  'say',
  'notify-send',
  'ast-grep',
  'sg',
  'comby',
  'semgrep',
  'codespell',
  'typos',
  'aspell',
  'hunspell',
  'column',
  'paste',
  'fold',
  'fmt',
  'expand',
  'look',
  'units',
  'bc',
  'expr',
  'seq',
  'basename',
  'dirname',
  'realpath',
  'readlink',
  'getent',
  'xdg-open',
  'open',
  'pbcopy',
  'wl-copy',
  'xclip',
  'gettext',
  'envsubst',
  'logger',
  'ffmpeg',
  'ffprobe',
  'convert',
  'magick',
  'pandoc',
  'pdftotext',
  'exiftool',
  'tokei',
  'cloc',
  'scc',
  // Test runners: their operands name tests (`phpunit --filter testDelete`, `rspec -e destroys`).
  'phpunit',
  'pest',
  'rspec',
  'ava',
  'tap',
  'karma',
  'cypress',
  'playwright',
  'testcafe',
  'behave',
  'robot',
  'nose2',
  'bats',
  'ctest',
]);

/** Long options whose value is a name, a pattern or a message, never a subcommand. */
const TEXT_OPTION =
  /^--(filter|grep|name|pattern|match|test|test-name-pattern|testNamePattern|spec|tag|tags|label|message|title|description|comment|query|search|keyword|exclude|include|only|skip|select|group|suite|case|target|config|profile|env|environment|mode|configuration|project|scheme)$/;

/** A word's verb parts: `stanza-delete` → stanza, delete; `vm.destroy` → destroy; `+publishSigned` → publish, signed. */
function verbParts(word: string): string[] {
  // Subcommands are written in lower case (`Release` is a configuration's name, `FORCE` a value).
  if (/[/=@\s]/.test(word) || !/^[+:]?[a-z]/.test(word) || word.length > 40) return [];
  const last = word.includes('.') ? word.slice(word.lastIndexOf('.') + 1) : word;
  // In camelCase only the first part is the verb (`deleteContainer`, `publishSigned`; not `testDelete`).
  return last
    .split(/[-_:+]+/)
    .filter(Boolean)
    .map((p) => p.replace(/^([a-z]+)[A-Z0-9].*$/, '$1').toLowerCase());
}

/**
 * The words in subcommand position: the first three operands, not counting the value of a
 * single-letter option just before one (`swift build -c release`, `restic -r repo forget`).
 */
export function subcommandPosition(args: readonly Word[]): Array<{ w: Word; i: number }> {
  const out: Array<{ w: Word; i: number }> = [];
  for (let i = 0; i < args.length && out.length < 3; i++) {
    const v = args[i]!.value;
    if (v === null) return out;
    if (v === '--') break;
    if (v.startsWith('-')) {
      // `-c release`, `-configuration Release`, `-r repo`, `--filter testDelete`: options that may take the next word.
      if (
        (/^-[A-Za-z][\w-]*$/.test(v) || TEXT_OPTION.test(v)) &&
        args[i + 1]?.value &&
        !args[i + 1]!.value!.startsWith('-')
      )
        i++;
      continue;
    }
    out.push({ w: args[i]!, i });
  }
  return out;
}

/** `heroku ps:scale web=0`, `fly scale count 0`, `mytool scale --replicas 0`: a service scaled to nothing. */
export function scalesToZero(args: readonly Word[]): boolean {
  const at = args.findIndex((w) => w.value !== null && verbParts(w.value).includes('scale'));
  if (at < 0 || at > 4) return false;
  return args
    .slice(at + 1)
    .some(
      (w, k, rest) =>
        (/^([\w.-]+=)?0$/.test(w.value ?? '') && !(k > 0 && /^-[A-Za-z]$/.test(rest[k - 1]!.value ?? ''))) ||
        (/^--(replicas|count|instances|size)$/.test(rest[k - 1]?.value ?? '') && w.value === '0'),
    );
}

/** Tools whose every use publishes (with the verbs that do not). */
const PUBLISHERS: Record<string, RegExp> = {
  dput: /^$/,
  dpl: /^$/,
  dupload: /^$/,
  'cpan-upload': /^$/,
  surge: /^(list|login|logout|whoami|token|plan|invite|revoke)$/,
  'gh-pages': /^$/,
  ghr: /^$/,
  'github-release': /^(info)$/,
  // ko and jib push the images they build unless told to keep them local.
  ko: /^(version|help|login|completion)$/,
  jib: /^(help|--version)$/,
  cosign:
    /^(verify|verify-attestation|verify-blob|triangulate|tree|version|download|public-key|generate-key-pair|help|dockerfile|manifest)$/,
  notation: /^(verify|inspect|list|ls|version|help|cert|key|plugin|policy)$/,
};

/** The finding for a tool Herald has no rules for, read from its verbs and options. */
export const unknownTool: Rule = (inv, ctx) => {
  if (DATA_LIKE.has(inv.name) || TEXT_TOOLS.has(inv.name)) return;
  const words = subcommandPosition(inv.args);
  const publisher = PUBLISHERS[inv.name];
  if (publisher) {
    const first = words[0]?.w.value ?? '';
    const local = inv.args.some((w) => /^(-L|--local|--push=false|--dry-run)$/.test(w.value ?? ''));
    if (!local && !(first && publisher.test(first)))
      return ctx.add(inv, {
        group: 'publish',
        rule: 'publish_tool',
        reason: `${inv.name} publishes what it builds or signs`,
      });
  }
  if (inv.args.some((w) => DRY_RUN.test(w.value ?? ''))) return;
  const manager = PACKAGE_MANAGERS.has(inv.name);
  for (const { w } of words) {
    const parts = verbParts(w.value!);
    const destroy = parts.find((p) => Object.hasOwn(DESTROY_VERBS, p));
    if (
      destroy &&
      !manager &&
      !(VCS_LIKE.has(inv.name) && !['strip', 'abandon', 'obliterate', 'purge'].includes(destroy))
    )
      return say(
        ctx,
        inv,
        w,
        DESTROY_VERBS[destroy]!,
        'destructive_verb',
        `${inv.name} ${w.value}: ${destroy} in subcommand position`,
      );
    if (parts.includes('forget') && inv.args.some((x) => x.value === '--prune'))
      return say(ctx, inv, w, D, 'destructive_verb', `${inv.name} forget --prune deletes snapshots for good`);
    const publish = parts.find((p) => PUBLISH_VERBS.has(p));
    if (publish && !(publish === 'push' && VCS_LIKE.has(inv.name)))
      return say(ctx, inv, w, 'publish', 'publish_verb', `${inv.name} ${w.value}: ${publish} in subcommand position`);
  }
  if (scalesToZero(inv.args))
    return ctx.add(inv, { group: I, rule: 'scale_to_zero', reason: `${inv.name} scales a service to zero` });
  for (const w of inv.args) {
    const v = w.value?.split('=')[0];
    if (v === undefined || v === '--') break;
    if (Object.hasOwn(DESTROY_OPTIONS, v) && !(manager && v !== '--drop'))
      return say(ctx, inv, w, DESTROY_OPTIONS[v]!, 'destructive_option', `${inv.name} ${v} destroys what it works on`);
    // `--publish 8080:80` publishes a port, not a package.
    const next = w.value!.includes('=')
      ? w.value!.slice(w.value!.indexOf('=') + 1)
      : inv.args[inv.args.indexOf(w) + 1]?.value;
    if (PUBLISH_OPTIONS.test(v) && !/^\d|:\d/.test(next ?? ''))
      return say(ctx, inv, w, 'publish', 'publish_verb', `${inv.name} ${v} publishes`);
  }
};

function say(ctx: RuleContext, inv: Invocation, w: Word, group: Group, rule: string, reason: string): void {
  ctx.add(inv, { group, rule, reason, at: [inv.word, w] });
}

/**
 * Task runners and package scripts named for shipping (`make deploy`, `npm run publish:prod`,
 * `rake release`): the project's own recipe for putting things in front of the world.
 */
/** Package scripts that ship: `deploy`, `deploy:prod`, `publish:npm`, `release`, `release:minor` (not `release:notes`). */
const SCRIPT_TARGETS =
  /^(deploy|publish)([-_:.].*)?$|^release([-_:.](patch|minor|major|prod|production|publish|ci|stable|beta|alpha|next))?$/i;

const TASK_RUNNERS: Record<string, { first?: RegExp; targets: RegExp; direct?: RegExp }> = {
  make: { targets: /^(deploy|publish)([-_:.].*)?$/i },
  gmake: { targets: /^(deploy|publish)([-_:.].*)?$/i },
  just: { targets: /^(deploy|publish)([-_:.].*)?$/i },
  task: { targets: /^(deploy|publish)([-_:.].*)?$/i },
  mage: { targets: /^(deploy|publish)([-_:.].*)?$/i },
  invoke: { targets: /^(deploy|publish|release)([-_:.].*)?$/i },
  rake: { targets: /^(deploy|publish|release)([-_:.].*)?$/i },
  npm: { first: /^(run|run-script|rum|urn)$/, targets: SCRIPT_TARGETS },
  // `pnpm release` runs the script; `pnpm deploy` is pnpm's own (a local copy of a workspace package).
  pnpm: { first: /^(run)$/, targets: SCRIPT_TARGETS, direct: /^(publish:.+|release([-_:.].*)?)$/i },
  yarn: { targets: SCRIPT_TARGETS },
  bun: { first: /^run$/, targets: SCRIPT_TARGETS, direct: /^(deploy|release)([-_:.].*)?$/i },
  composer: { first: /^(run-script|run)$/, targets: SCRIPT_TARGETS },
};

export const taskTargets: Rule = (inv, ctx) => {
  const spec = TASK_RUNNERS[inv.name];
  if (!spec) return;
  const ops = inv.args.filter((w) => w.value !== null && !w.value.startsWith('-') && !w.value.includes('='));
  const viaRun = spec.first?.test(ops[0]?.value ?? '');
  const targets = spec.first ? (viaRun ? ops.slice(1, 2) : ops.slice(0, 1)) : ops.slice(0, 3);
  const re = spec.first && !viaRun ? spec.direct : spec.targets;
  const hit = re && targets.find((w) => re.test(w.value!));
  if (hit)
    ctx.add(inv, {
      group: 'publish',
      rule: 'deploy_task',
      reason: `${inv.name} ${hit.value}: the project's deploy or publish task`,
      at: [inv.word, hit],
    });
};
