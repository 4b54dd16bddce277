/**
 * git and its forges (groups destroy_history, persist, exfiltrate, publish): discarding work
 * (`reset --hard`, `clean -f`, `checkout -- .`, `restore`), rewriting or deleting history and
 * refs (force pushes in every spelling — `-f`, `--force`, `--forc`, `+main` — remote deletes,
 * `filter-branch`, `reflog expire`, `gc --prune=now`), git config that makes git run programs
 * (hooks paths, fsmonitor, pagers, aliases with `!`, filters, credential helpers), and pushes to
 * remotes the command line just added or to bare URLs.
 */
import { namedFiles } from './workspace-work.js';
import type { Group } from '../verdict.js';
import type { Invocation, Rule, RuleContext } from '../invocation.js';
import { hasOption, longMatches, operands, optionWords } from '../options.js';
import { isSecretFile } from '../paths.js';
import type { Word } from '../shell.js';
import { PLAIN_PROGRAM } from './code.js';

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
  /^(core\.(fsmonitor|hookspath|sshcommand|pager|editor|askpass|gitproxy|worktree)|sequence\.editor|diff\.external|diff\.\*\.(textconv|command)|merge\.\*\.driver|filter\.\*\.(clean|smudge|process)|credential(\.\*)?\.helper|gpg(\.\*)?\.program|uploadpack\.packobjectshook|alias\..+|include\.path|includeif\.\*\.path|pager\..+|interactive\.difffilter|remote\.\*\.(uploadpack|receivepack|proxy)|init\.templatedir|url\.\*\.(insteadof|pushinsteadof)|(browser|man)\.\*\.(cmd|path)|web\.browser|core\.attributesfile|mergetool\.\*\.cmd|difftool\.\*\.cmd|protocol\.\*\.allow|protocol\.allow|core\.sshcommand)$/;

/**
 * Config keys that change where git sends traffic or whom it trusts (`http.proxy`,
 * `http.sslVerify false`), or make ordinary commands destroy (`remote.origin.mirror`, a `+` push
 * refspec that forces every push, `clean.requireForce false`).
 */
const GIT_TRUST_KEY =
  /^(https?(\.\*)?\.(proxy|sslverify|sslcainfo|sslcapath|sslbackend|sslcert|sslkey|extraheader|cookiefile|emptyauth|followredirects)|core\.(askpass|sshcommand)|gpg\.program)$/;
const GIT_DESTROY_KEY =
  /^(remote\.\*\.(mirror|push)|clean\.requireforce|receive\.denydeletes|receive\.denynonfastforwards|gc\.(pruneexpire|reflogexpire|reflogexpireunreachable)|core\.bare|core\.worktree)$/;

/** `core.hooksPath` → `core.hookspath`; `filter.lfs.clean` → `filter.*.clean`. */
export function gitKeyPattern(key: string): string {
  const parts = key.split('.');
  if (parts.length >= 3) return `${parts[0]!.toLowerCase()}.*.${parts[parts.length - 1]!.toLowerCase()}`;
  return key.toLowerCase();
}

/** The key of a 2-part or 3-part git config name, as GIT_EXEC_KEY and friends spell it. */
const keyOf = (key: string) => {
  const k = gitKeyPattern(key);
  return (re: RegExp) => re.test(k) || re.test(key.toLowerCase());
};

function execConfig(ctx: RuleContext, inv: Invocation, key: string, value: Word | undefined, at: Word): void {
  const k = gitKeyPattern(key);
  const is = keyOf(key);
  const v0 = value?.value;
  if (is(GIT_TRUST_KEY) && !(/sslverify/.test(k) && /^(true|yes|on|1)$/i.test(v0 ?? '')))
    ctx.add(inv, {
      group: 'persist',
      rule: 'git_trust_config',
      reason: `git config ${key} changes where git sends traffic or which servers it trusts`,
      at: [inv.word, at],
    });
  const off = /^(false|no|off|0)$/i.test(v0 ?? '');
  const destroys =
    k === 'remote.*.mirror'
      ? !off
      : k === 'remote.*.push'
        ? !v0 || /^[+:]/.test(v0)
        : k === 'clean.requireforce' || /^receive\.deny/.test(k)
          ? off
          : is(GIT_DESTROY_KEY);
  if (destroys)
    ctx.add(inv, {
      group: 'destroy_history',
      rule: 'git_force_config',
      reason: `git config ${key} makes later commands delete or force-overwrite refs or files`,
      at: [inv.word, at],
    });
  if (!GIT_EXEC_KEY.test(k) && !GIT_EXEC_KEY.test(key.toLowerCase())) return;
  // `git -c sequence.editor=: rebase -i`, `core.pager=less`: a plain, well-known program is everyday.
  if (/editor$|pager/.test(k) && PLAIN_PROGRAM.test(v0 ?? '')) return;
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

/**
 * Config given for one command: `git -c k=v`, `GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=k
 * GIT_CONFIG_VALUE_0=v git …`, `GIT_CONFIG_PARAMETERS="'k=v'"`. Keys lower-cased.
 */
function oneShotConfig(inv: Invocation, ctx: RuleContext, a: readonly Word[]): Map<string, Word> {
  const config = new Map<string, Word>();
  const take = (kv: string, at: Word) => {
    const eq = kv.indexOf('=');
    const key = eq < 0 ? kv : kv.slice(0, eq);
    const value = { ...at, value: eq < 0 ? '' : kv.slice(eq + 1) };
    config.set(key.toLowerCase(), value);
    execConfig(ctx, inv, key, value, at);
  };
  const env = new Map(inv.env.map((e) => [e.name, e.value]));
  for (const [name, w] of env) {
    const m = /^GIT_CONFIG_KEY_(\d+)$/.exec(name);
    const value = m ? env.get(`GIT_CONFIG_VALUE_${m[1]}`) : undefined;
    if (m && w.value !== null) take(`${w.value}=${value?.value ?? ''}`, w);
    if (name === 'GIT_CONFIG_PARAMETERS' && w.value !== null)
      for (const p of w.value.matchAll(/'((?:[^'\\]|\\.)*)'/g)) take(p[1]!, w);
  }
  for (let i = 0; i < a.length; i++) {
    const v = a[i]!.value;
    if (v === null || !v.startsWith('-')) break;
    if (v === '-c' && a[i + 1]) {
      const kv = a[i + 1]!.value;
      if (kv === null)
        ctx.add(inv, {
          group: 'indirection',
          rule: 'dynamic_script',
          reason: 'git -c with a value only known at run time',
          at: [inv.word, a[i + 1]],
        });
      else take(kv, a[i + 1]!);
    }
    if (GLOBAL_VALUED.has(v.split('=')[0]!) && !v.includes('=')) i++;
  }
  return config;
}

/** `ext::sh -c …` URLs: git's ext transport runs the rest as a command (`%` escapes a space). */
function extTransport(inv: Invocation, ctx: RuleContext, words: readonly Word[]): void {
  for (const w of words) {
    if (!/^ext::/.test(w.value ?? '')) continue;
    ctx.add(inv, {
      group: 'indirection',
      rule: 'ext_transport',
      reason: 'an ext:: URL makes git run a command',
      at: [inv.word, w],
    });
    ctx.script(inv, { ...w, value: w.value!.slice(5).replace(/% /g, ' ').replace(/%%/g, '%') }, 'git ext:: transport');
  }
}

const git: Rule = (inv, ctx) => {
  const a = inv.args;
  const config = oneShotConfig(inv, ctx, a);
  let i = 0;
  for (; i < a.length; i++) {
    const v = a[i]!.value;
    if (v === null || !v.startsWith('-')) break;
    if (GLOBAL_VALUED.has(v.split('=')[0]!) && !v.includes('=')) i++;
  }
  const sub = a[i]?.value ?? null;
  const rest = a.slice(i + 1);
  // `GIT_CONFIG_KEY_0=alias.up GIT_CONFIG_VALUE_0='push --force' git up`: the alias is what runs.
  const alias = sub !== null ? config.get(`alias.${sub.toLowerCase()}`)?.value : undefined;
  if (alias && !alias.startsWith('!') && !ctx.facts.get('git-alias')?.has(sub!)) {
    const seen = ctx.facts.get('git-alias') ?? new Set<string>();
    ctx.facts.set('git-alias', seen.add(sub!));
    const words = alias
      .split(/\s+/)
      .filter(Boolean)
      .map((t) => ({ ...a[i]!, value: t, raw: t }));
    ctx.nested(inv, [inv.word, ...words, ...rest]);
    seen.delete(sub!);
    return;
  }
  extTransport(inv, ctx, rest);
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
  const say = (rule: string, reason: string, group: Group = 'destroy_history', at: Word[] = [a[i]!]) =>
    ctx.add(inv, { group, rule, reason, at: [inv.word, ...at] });
  const opts = optionWords(rest);
  const has = (short: string | undefined, ...long: string[]) => hasOption(rest, { ...(short ? { short } : {}), long });
  const ops = operands(rest).map((w) => w.value);
  switch (sub) {
    case 'reset':
      if (opts.some((o) => longMatches(o, '--hard', 3) || longMatches(o, '--merge', 4)))
        say('git_reset_hard', 'git reset --hard discards uncommitted work');
      break;
    case 'clean':
      if (
        (has('f', '--force') || /^(false|no|off|0)$/i.test(config.get('clean.requireforce')?.value ?? '')) &&
        !has('n', '--dry-run')
      )
        say('git_clean', 'git clean -f deletes untracked files');
      break;
    case 'checkout': {
      const paths = rest.findIndex((w) => w.value === '--');
      if (
        has('f', '--force') ||
        ops.some((p) => p === '.' || p === ':/' || p === '*') ||
        (paths >= 0 &&
          (inv.operandsFromStdin ||
            (rest.length > paths + 1 &&
              !(
                namedFiles(rest.slice(paths + 1)) && rest.slice(0, paths).every((w) => /^(HEAD)?$/.test(w.value ?? 'x'))
              ))))
      )
        say('git_discard', 'git checkout over files discards their uncommitted changes');
      // `checkout -B main origin/main` resets an existing branch to another commit.
      if (opts.some((o) => /^-[a-zA-Z]*B/.test(o)))
        say('git_branch_delete', 'git checkout -B resets a branch, dropping its commits');
      break;
    }
    case 'read-tree':
      if (has('u') && opts.some((o) => o === '--reset' || /^-[a-zA-Z]*m/.test(o)))
        say('git_discard', 'git read-tree -u --reset overwrites the working tree');
      break;
    case 'checkout-index':
      if (has('f', '--force')) say('git_discard', 'git checkout-index -f overwrites working-tree files');
      break;
    case 'send-pack':
      if (has('f', '--force') || ops.some((r) => r?.startsWith('+')))
        say('git_force_push', 'force push rewrites the remote history');
      if (has(undefined, '--mirror') || ops.some((r) => r?.startsWith(':')))
        say('git_remote_delete', 'push deletes refs on the remote');
      break;
    case 'fast-import':
      if (has(undefined, '--force')) say('git_rewrite', 'git fast-import --force overwrites branches');
      break;
    case 'replace':
      if (has(undefined, '--graft', '--edit', '--convert-graft-file') || ops.length >= 2)
        say('git_rewrite', 'git replace changes what history every command sees');
      break;
    case 'lfs':
      if (ops[0] === 'migrate' && /^(import|export)$/.test(ops[1] ?? ''))
        say('git_rewrite', `git lfs migrate ${ops[1]} rewrites history`);
      break;
    case 'difftool':
    case 'mergetool': {
      const x = rest.findIndex((w) => /^(-x|--extcmd)$/.test(w.value ?? ''));
      const attached = rest.find((w) => w.value?.startsWith('--extcmd='));
      const cmd = attached ? { ...attached, value: attached.value!.slice(9) } : x >= 0 ? rest[x + 1] : undefined;
      if (cmd) {
        say('inline_interpreter', `git ${sub} -x runs a command`, 'indirection');
        ctx.script(inv, cmd, `git ${sub} --extcmd`);
      }
      break;
    }
    case 'clone':
    case 'fetch':
    case 'pull':
    case 'ls-remote': {
      for (let k = 0; k < rest.length; k++)
        if (/^(-c|--config)$/.test(rest[k]!.value ?? '') && rest[k + 1]?.value) {
          const kv = rest[k + 1]!.value!;
          const eq = kv.indexOf('=');
          execConfig(
            ctx,
            inv,
            eq < 0 ? kv : kv.slice(0, eq),
            { ...rest[k + 1]!, value: kv.slice(eq + 1) },
            rest[k + 1]!,
          );
        }
      const u = rest.findIndex((w) => /^(-u|--upload-pack)$/.test(w.value ?? ''));
      if (u >= 0 && rest[u + 1]) ctx.script(inv, rest[u + 1]!, `git ${sub} --upload-pack`);
      break;
    }
    case 'diff':
      if (has(undefined, '--no-index')) {
        const secret = operands(rest).find((w) => isSecretFile(w.value, inv.cmd.cwd));
        if (secret) say('credential_read', 'git diff --no-index prints a secrets file', 'exfiltrate', [secret]);
      }
      break;
    case 'restore':
      // Restoring named files from the index is the everyday undo; `.`, folders, `--source` still ask.
      if (
        (!has('S', '--staged') || has('W', '--worktree')) &&
        !(namedFiles(operands(rest)) && !opts.some((o) => /^(-s|--source)/.test(o)) && !inv.operandsFromStdin)
      )
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
      if (
        has('d', '--delete', '--mirror', '--prune') ||
        refspecs.some((r) => r?.startsWith(':')) ||
        /^(true|yes|on|1|)$/i.test([...config].find(([k]) => /^remote\..+\.mirror$/.test(k))?.[1].value ?? 'no')
      )
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
      // Deleting a local tag or two is everyday; deleting tags by the dozen or from a list is not.
      if (
        has('d', '--delete') &&
        (inv.operandsFromStdin || operands(rest).some((w) => w.value === null || w.glob) || operands(rest).length > 3)
      )
        say('git_tag_delete', 'deleting many tags');
      break;
    case 'config': {
      const readOnly =
        opts.some(
          (o) =>
            /^--(get|get-all|get-regexp|get-urlmatch|list|show-origin|show-scope|name-only)$/.test(o) || o === '-l',
        ) || ['get', 'list'].includes(ops[0] ?? '');
      if (readOnly) {
        const key = operands(rest).find((w) => w.value !== 'get' && w.value !== 'list');
        if (key && /extraheader|credential|password|token|secret/i.test(key.value ?? ''))
          say('credential_read', `git config ${key.value} prints a stored credential`, 'exfiltrate', [key]);
        break;
      }
      const scope = opts.find((o) => /^--(global|system|file|blob)$/.test(o) || o === '-f');
      // The value of `--file x` / `-f x` / `--blob x` is not the key.
      const valued = rest.findIndex((w) => /^(--file|-f|--blob|--type|--default|--comment)$/.test(w.value ?? ''));
      const words = operands(rest.filter((_w, k) => k !== valued + 1 || valued < 0)).filter(
        (w) => !['set', 'unset', 'add'].includes(w.value ?? ''),
      );
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
        // `foreach [--recursive] [-q] <command>`: the rest of the words, options and all, are the command.
        let k = rest.findIndex((w) => w.value === 'foreach') + 1;
        while (/^(--recursive|-q|--quiet)$/.test(rest[k]?.value ?? '')) k++;
        const cmd = rest.slice(k);
        if (cmd.length === 1) ctx.script(inv, cmd[0]!, 'git submodule foreach');
        else if (cmd.length) ctx.nested(inv, cmd);
      }
      break;
    case 'bisect':
      if (ops[0] === 'run') {
        const cmd = rest.slice(rest.findIndex((w) => w.value === 'run') + 1);
        if (cmd.length) ctx.nested(inv, cmd);
      }
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
  else if (
    (area === 'pr' || area === 'mr') &&
    (verb === 'review' || verb === 'approve') &&
    (verb === 'approve' || hasOption(inv.args, { short: 'a', long: ['--approve'] }))
  )
    say('publish', 'merge_request', 'approves a pull request');
  else if (area === 'workflow' && (verb === 'run' || verb === 'enable'))
    say('publish', 'workflow_run', `starts a CI workflow (${ops[2] ?? 'by name'})`);
  else if (area === 'run' && verb === 'rerun') say('publish', 'workflow_run', 'reruns a CI workflow');
  else if (
    (verb === 'edit' || verb === 'create') &&
    area === 'repo' &&
    inv.args.some((w) => /^(public|--public|--visibility=public)$/.test(w.value ?? ''))
  )
    say('publish', 'repo_public', `makes a repository public (${inv.name} repo ${verb})`);
  else if (area === 'api' && apiWrites(inv))
    say('destroy_infrastructure', 'forge_api_write', `${inv.name} api writes through the API`);
};

/** `gh api` sends a POST when given fields (`-f`, `-F`, `--input`), unless a method says otherwise. */
function apiWrites(inv: Invocation): boolean {
  const fields = inv.args.some(
    (w) =>
      /^(-f|-F|--field|--raw-field|--input)$/.test(w.value ?? '') || /^--(field|raw-field|input)=/.test(w.value ?? ''),
  );
  const method = hasOption(inv.args, { short: 'X', long: ['--method'] });
  return fields && (!method || inv.args.some((w) => /^(POST|PUT|PATCH|DELETE)$/i.test(w.value ?? '')));
}

/** BFG Repo-Cleaner (`bfg`, `java -jar bfg.jar`): rewrites every commit to drop files or blobs. */
const bfg: Rule = (inv, ctx) => {
  if (inv.args.some((w) => /^--(help|version)$/.test(w.value ?? ''))) return;
  ctx.add(inv, { group: 'destroy_history', rule: 'git_rewrite', reason: 'the BFG rewrites the whole history' });
};

export const GIT_RULES: Record<string, Rule> = { git, gh: forge, glab: forge, bfg };
