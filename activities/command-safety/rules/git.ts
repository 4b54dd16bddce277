/**
 * git and its forges (groups destroy_history, persist, exfiltrate, publish): discarding work
 * (`reset --hard`, `clean -f`, `checkout -- .`, `restore`), rewriting or deleting history and
 * refs (force pushes in every spelling — `-f`, `--force`, `--forc`, `+main` — remote deletes,
 * `filter-branch`, `reflog expire`, `gc --prune=now`), git config that makes git run programs
 * (hooks paths, fsmonitor, pagers, aliases with `!`, filters, credential helpers), and pushes to
 * remotes the command line just added or to bare URLs.
 */
import type { Invocation, Rule, RuleContext } from '../invocation.js';
import { hasOption, longMatches, operands, optionWords } from '../options.js';
import { isSecretFile } from '../paths.js';
import type { Word } from '../shell.js';

const GLOBAL_VALUED = new Set([
  '-C',
  '-c',
  '--git-dir',
  '--work-tree',
  '--namespace',
  '--super-prefix',
  '--config-env',
  '--exec-path',
]);

/** Config keys (subsections as `*`) that make git run a program, or fetch code from elsewhere. */
export const GIT_EXEC_KEY =
  /^(core\.(fsmonitor|hookspath|sshcommand|pager|editor|askpass|gitproxy|worktree)|sequence\.editor|diff\.external|diff\.\*\.(textconv|command)|merge\.\*\.driver|filter\.\*\.(clean|smudge|process)|credential(\.\*)?\.helper|gpg(\.\*)?\.program|uploadpack\.packobjectshook|alias\..+|include\.path|includeif\.\*\.path|pager\..+|interactive\.difffilter|remote\.\*\.(uploadpack|receivepack|proxy)|init\.templatedir|url\.\*\.(insteadof|pushinsteadof)|(browser|man)\.\*\.(cmd|path)|web\.browser|core\.attributesfile|mergetool\.\*\.cmd|difftool\.\*\.cmd)$/;

/** `core.hooksPath` → `core.hookspath`; `filter.lfs.clean` → `filter.*.clean`. */
export function gitKeyPattern(key: string): string {
  const parts = key.split('.');
  if (parts.length >= 3) return `${parts[0]!.toLowerCase()}.*.${parts[parts.length - 1]!.toLowerCase()}`;
  return key.toLowerCase();
}

function execConfig(ctx: RuleContext, inv: Invocation, key: string, value: Word | undefined, at: Word): void {
  const k = gitKeyPattern(key);
  if (!GIT_EXEC_KEY.test(k) && !GIT_EXEC_KEY.test(key.toLowerCase())) return;
  ctx.add(inv, {
    group: 'persist',
    rule: 'git_exec_config',
    reason: `git config ${key} makes git run a program or fetch from elsewhere`,
    at: [inv.word, at],
  });
  const v = value?.value;
  if (
    v &&
    (k.startsWith('alias.')
      ? v.startsWith('!')
      : /^(core\.(sshcommand|pager|editor|fsmonitor)|sequence\.editor|pager\..+)$/.test(k))
  )
    ctx.script(inv, { ...value, value: v.replace(/^!/, '') }, `git ${key}`);
}

const git: Rule = (inv, ctx) => {
  const a = inv.args;
  let i = 0;
  for (; i < a.length; i++) {
    const v = a[i]!.value;
    if (v === null || !v.startsWith('-')) break;
    const name = v.split('=')[0]!;
    if (v === '-c' && a[i + 1]) {
      const kv = a[i + 1]!.value;
      if (kv === null)
        ctx.add(inv, {
          group: 'indirection',
          rule: 'dynamic_script',
          reason: 'git -c with a value only known at run time',
          at: [inv.word, a[i + 1]],
        });
      else {
        const eq = kv.indexOf('=');
        execConfig(
          ctx,
          inv,
          eq < 0 ? kv : kv.slice(0, eq),
          { ...a[i + 1]!, value: eq < 0 ? '' : kv.slice(eq + 1) },
          a[i + 1]!,
        );
      }
    }
    if (GLOBAL_VALUED.has(name) && !v.includes('=')) i++;
  }
  const sub = a[i]?.value ?? null;
  const rest = a.slice(i + 1);
  if (sub === null) {
    if (a[i])
      ctx.add(inv, {
        group: 'indirection',
        rule: 'dynamic_command',
        reason: 'a git subcommand only known at run time',
        at: [inv.word, a[i]],
      });
    return;
  }
  const say = (
    rule: string,
    reason: string,
    group: 'destroy_history' | 'persist' | 'exfiltrate' | 'publish' = 'destroy_history',
    at: Word[] = [a[i]!],
  ) => ctx.add(inv, { group, rule, reason, at: [inv.word, ...at] });
  const opts = optionWords(rest);
  const has = (short: string | undefined, ...long: string[]) => hasOption(rest, { ...(short ? { short } : {}), long });
  const ops = operands(rest).map((w) => w.value);
  switch (sub) {
    case 'reset':
      if (opts.some((o) => longMatches(o, '--hard', 3) || longMatches(o, '--merge', 4)))
        say('git_reset_hard', 'git reset --hard discards uncommitted work');
      break;
    case 'clean':
      if (has('f', '--force') && !has('n', '--dry-run')) say('git_clean', 'git clean -f deletes untracked files');
      break;
    case 'checkout': {
      const paths = rest.findIndex((w) => w.value === '--');
      if (
        has('f', '--force') ||
        ops.some((p) => p === '.' || p === ':/' || p === '*') ||
        (paths >= 0 && rest.length > paths + 1)
      )
        say('git_discard', 'git checkout over files discards their uncommitted changes');
      break;
    }
    case 'restore':
      if (!has('S', '--staged') || has('W', '--worktree'))
        say('git_discard', 'git restore discards uncommitted changes');
      break;
    case 'switch':
      if (has('f', '--force', '--discard-changes') || opts.includes('-C'))
        say('git_discard', 'git switch --discard-changes throws away local changes');
      break;
    case 'stash':
      if (['drop', 'clear'].includes(ops[0] ?? '')) say('git_stash_drop', 'dropping stashed work');
      break;
    case 'branch':
      if (
        opts.some((o) => /^-[a-zA-Z]*[DMf]/.test(o)) ||
        has(undefined, '--force') ||
        (has('d', '--delete') && has('f', '--force'))
      )
        say('git_branch_delete', 'force-deleting or force-renaming a branch');
      break;
    case 'push': {
      const refspecs = ops.slice(1);
      if (has('f', '--force', '--force-with-lease', '--force-if-includes') || refspecs.some((r) => r?.startsWith('+')))
        say('git_force_push', 'force push rewrites the remote history', 'destroy_history');
      if (has('d', '--delete', '--mirror', '--prune') || refspecs.some((r) => r?.startsWith(':')))
        say('git_remote_delete', 'push deletes refs on the remote', 'destroy_history');
      const remote = ops[0];
      if (remote && (/^[a-z][a-z0-9+.-]*:\/\//i.test(remote) || /^[^/\s]+@[^/\s]+:/.test(remote)))
        say('push_to_url', 'pushes the repository to a URL rather than a configured remote', 'exfiltrate');
      else if (ctx.facts.get('git-remote-added')?.has(remote ?? 'origin'))
        say('push_to_new_remote', `pushes to the remote ${remote ?? 'origin'} this command line set`, 'exfiltrate');
      if (remote && /^(heroku|dokku|production|prod|live|deploy|flynn|piku)$/.test(remote))
        say('deploy_push', `pushing to ${remote} deploys`, 'publish');
      if (rest.some((w) => w.value === null)) say('dynamic_option', 'git push with arguments only known at run time');
      break;
    }
    case 'add':
      if (operands(rest).some((w) => isSecretFile(w.value, inv.cmd.cwd)))
        say('credential_commit', 'adds a secrets file to the repository', 'exfiltrate');
      break;
    case 'credential':
      if (['fill', 'approve'].includes(ops[0] ?? ''))
        say('credential_read', 'asks git for stored credentials', 'exfiltrate');
      break;
    case 'remote': {
      if ((ops[0] === 'add' || ops[0] === 'set-url') && ops[1]) {
        const added = ctx.facts.get('git-remote-added') ?? new Set<string>();
        added.add(ops[1]);
        ctx.facts.set('git-remote-added', added);
      }
      if (['remove', 'rm'].includes(ops[0] ?? '')) say('git_remote_remove', 'removing a remote');
      break;
    }
    case 'filter-branch':
    case 'filter-repo':
      say('git_rewrite', `git ${sub} rewrites the whole history`);
      break;
    case 'reflog':
      if (['expire', 'delete'].includes(ops[0] ?? ''))
        say('git_reflog_expire', 'expiring the reflog makes lost commits unrecoverable');
      break;
    case 'gc':
      if (opts.some((o) => o.startsWith('--prune')))
        say('git_prune', 'git gc --prune deletes unreachable commits for good');
      break;
    case 'prune':
      say('git_prune', 'git prune deletes unreachable objects');
      break;
    case 'update-ref':
      say('git_ref_write', 'moves or deletes refs directly');
      break;
    case 'update-ref-delete':
      if (has('d', '--delete') || opts.includes('--stdin')) say('git_ref_delete', 'deleting refs directly');
      break;
    case 'rm':
      if (has('r') && !has(undefined, '--cached'))
        say('git_rm_recursive', 'git rm -r deletes files from the working tree');
      break;
    case 'worktree':
      if (ops[0] === 'remove' && has('f', '--force')) say('git_discard', 'removing a worktree with its changes');
      break;
    case 'tag':
      if (has('d', '--delete')) say('git_tag_delete', 'deleting a tag');
      break;
    case 'config': {
      const readOnly =
        opts.some(
          (o) =>
            /^--(get|get-all|get-regexp|get-urlmatch|list|show-origin|show-scope|name-only)$/.test(o) || o === '-l',
        ) || ['get', 'list'].includes(ops[0] ?? '');
      if (readOnly) break;
      const scope = opts.find((o) => /^--(global|system|file|blob)$/.test(o) || o === '-f');
      const words = operands(rest).filter((w) => !['set', 'unset', 'add'].includes(w.value ?? ''));
      const key = words[0];
      if (scope === '--system') say('git_config_system', 'changing the system-wide git config', 'persist');
      if (key?.value === null) say('dynamic_script', 'a git config key only known at run time', 'persist');
      else if (key) execConfig(ctx, inv, key.value, words[1], key);
      break;
    }
    case 'submodule':
      if (ops[0] === 'deinit' && has('f', '--force'))
        say('git_discard', 'git submodule deinit -f discards submodule work');
      if (ops[0] === 'foreach') {
        const cmd = operands(rest).slice(1);
        if (cmd.length === 1) ctx.script(inv, cmd[0]!, 'git submodule foreach');
        else if (cmd.length) ctx.nested(inv, cmd);
      }
      break;
    case 'bisect':
      if (ops[0] === 'run') ctx.nested(inv, operands(rest).slice(1));
      break;
    case 'rebase': {
      const x = rest.findIndex((w) => w.value === '-x' || w.value === '--exec');
      if (x >= 0 && rest[x + 1]) ctx.script(inv, rest[x + 1]!, 'git rebase --exec');
      break;
    }
    case 'send-email':
      say('git_send_email', 'mails repository contents', 'exfiltrate');
      break;
    default:
      break;
  }
};

/** GitHub and GitLab CLIs: deleting repos and releases, publishing releases, merging, public gists. */
const forge: Rule = (inv, ctx) => {
  const ops = operands(inv.args).map((w) => w.value);
  const [area, verb] = ops;
  const say = (
    group: 'destroy_history' | 'publish' | 'exfiltrate' | 'destroy_infrastructure',
    rule: string,
    reason: string,
  ) => ctx.add(inv, { group, rule, reason });
  if (area === 'repo' && (verb === 'delete' || verb === 'archive'))
    say('destroy_history', 'forge_repo_delete', `${inv.name} repo ${verb}`);
  else if (area === 'release' && verb === 'delete')
    say('destroy_history', 'forge_release_delete', 'deleting a release');
  else if (area === 'release' && ['create', 'upload', 'edit'].includes(verb ?? ''))
    say('publish', 'release_publish', `publishing a release (${inv.name} release ${verb})`);
  else if ((area === 'pr' || area === 'mr') && verb === 'merge')
    say('publish', 'merge_request', 'merging a pull request');
  else if (area === 'gist' && verb === 'create') say('exfiltrate', 'gist_create', 'uploads files to a gist');
  else if (
    area === 'api' &&
    inv.args.some((w) => /^(DELETE|PUT|PATCH|POST)$/i.test(w.value ?? '')) &&
    hasOption(inv.args, { short: 'X', long: ['--method'] })
  )
    say('destroy_infrastructure', 'forge_api_write', `${inv.name} api writes through the API`);
  else if (area === 'secret' && (verb === 'set' || verb === 'delete'))
    say('destroy_infrastructure', 'forge_secret', `${inv.name} secret ${verb}`);
  else if (area === 'auth' && verb === 'token') say('exfiltrate', 'credential_read', 'prints the forge token');
};

export const GIT_RULES: Record<string, Rule> = { git, gh: forge, glab: forge };
