/**
 * The named checks of the git rows (table/rows/git.ts): what a row cannot say with a subcommand,
 * options and operand classes — configuration the line gives (`-c`, `GIT_CONFIG_*`, `git config`),
 * which files a checkout or restore names, a push to a remote an earlier command of the line added.
 * Each gets the invocation from the subcommand on (git's own options stripped) and, in `line`, the
 * whole invocation and what earlier commands of the line established.
 */
import type { Check } from './checks.js';
import { hasOption, operands, optionWords } from '../options.js';
import { namedFiles } from '../rules/workspace-work.js';
import type { GitSetting } from './git-command.js';
import { destroySetting, execSetting, gitSettings, oneShotValue, trustSetting } from './git-command.js';

const settingAt =
  (test: (s: GitSetting) => boolean): Check =>
  (_inv, line) => {
    const s = gitSettings(line.whole).find(test);
    return s ? [s.at] : undefined;
  };

/** A remote that is a URL or `user@host:path` rather than a configured name. */
export const URL_REMOTE = /^[a-z][a-z0-9+.-]*:\/\/|^[^/\s]+@[^/\s]+:/i;

export const GIT_CHECKS = {
  /** A setting that makes git run a program or fetch from elsewhere (hooks path, pager, `alias.x=!…`, filters, helpers). */
  'git.execConfig': settingAt(execSetting),
  /** `git --config-env=core.pager=VAR`: configuration (possibly a program to run) from a variable. */
  'git.configFromEnvironment': (_inv, line) => {
    const w = line.whole.args.find((a) => /^--config-env(=|$)/.test(a.value ?? ''));
    return w ? [w] : undefined;
  },
  /** A setting that changes where git sends traffic or whom it trusts (`http.proxy`, `http.sslVerify=false`). */
  'git.trustConfig': settingAt(trustSetting),
  /** A setting that makes later commands destroy (`remote.x.mirror`, `+` push refspecs, `clean.requireForce=false`). */
  'git.forceConfig': settingAt(destroySetting),
  /** `git -c clean.requireForce=false clean`: cleaning without `-f`. */
  'git.cleanUnforced': (_inv, line) =>
    /^(false|no|off|0)$/i.test(oneShotValue(line.whole, 'clean.requireforce') ?? '') ? [] : undefined,
  /** `git -c remote.origin.mirror=true push`: every push mirrors, deleting refs the remote has and we lack. */
  'git.mirrorConfig': (_inv, line) => {
    const s = gitSettings(line.whole).find((x) => x.oneShot && /^remote\..+\.mirror$/i.test(x.key));
    return s && /^(true|yes|on|1|)$/i.test(s.value?.value ?? '') ? [s.at] : undefined;
  },
  /**
   * `git checkout [tree] -- paths`: overwrites those paths from the index or a commit. Named files
   * from the index or HEAD are the everyday undo; `.`, folders, globs, another commit, or paths
   * arriving on standard input are not.
   */
  'git.checkoutPaths': (inv) => {
    const rest = inv.args.slice(1);
    const paths = rest.findIndex((w) => w.value === '--');
    if (paths < 0) return undefined;
    if (inv.operandsFromStdin) return [];
    const named = rest.slice(paths + 1);
    if (!named.length) return undefined;
    return namedFiles(named) && rest.slice(0, paths).every((w) => /^(HEAD)?$/.test(w.value ?? 'x')) ? undefined : [];
  },
  /** `git restore` of the worktree over `.`, folders, globs, from `--source`, or from standard input. */
  'git.restoreDiscards': (inv) => {
    const rest = inv.args.slice(1);
    if (hasOption(rest, { short: 'S', long: ['--staged'] }) && !hasOption(rest, { short: 'W', long: ['--worktree'] }))
      return undefined;
    const everyday =
      namedFiles(operands(rest)) && !optionWords(rest).some((o) => /^(-s|--source)/.test(o)) && !inv.operandsFromStdin;
    return everyday ? undefined : [];
  },
  /** More than three tag names, or names arriving on standard input. */
  'git.manyOperands': (inv) => (inv.operandsFromStdin || operands(inv.args.slice(1)).length > 3 ? [] : undefined),
  /** `git remote add evil URL; git push evil`: the remote (origin by default) was set earlier in this line. */
  'git.pushesToAddedRemote': (inv, line) => {
    const remote = operands(inv.args.slice(1))[0];
    const name = remote?.value ?? 'origin';
    if (remote?.value === null || URL_REMOTE.test(name)) return undefined;
    return line.facts.get('git-remote-added')?.has(name) ? [remote] : undefined;
  },
} satisfies Record<string, Check>;
