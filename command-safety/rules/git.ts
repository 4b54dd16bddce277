/**
 * What git runs (the findings about git itself are rows: table/rows/git.ts): an alias given for
 * this one command (`-c alias.up='push --force' up`) is read as the command it stands for; the
 * programs config values name (`core.pager`, `alias.x=!…`), `ext::` URLs, `--upload-pack`,
 * `difftool -x`, `grep -O`, `rebase --exec`, `bisect run` and `submodule foreach` are read as the commands
 * they run. What the gate cannot read — a subcommand or a config key only known at run time —
 * asks. `git remote add|set-url NAME` is remembered, so a later push to NAME in the line is seen.
 */
import type { Rule } from '../invocation.js';
import { operands } from '../options.js';
import { configWrite, gitSettings, gitSubcommandAt, settingScript } from '../table/git-command.js';

const git: Rule = (inv, ctx) => {
  const a = inv.args;
  const i = gitSubcommandAt(a);
  for (let k = 0; k < i; k++)
    if (a[k]!.value === '-c' && a[k + 1]?.value === null)
      ctx.add(inv, {
        group: 'indirection',
        rule: 'dynamic_script',
        reason: 'git -c with a value only known at run time',
        at: [inv.word, a[k + 1]],
      });
  const settings = gitSettings(inv);
  for (const s of settings) {
    const script = settingScript(s);
    if (script) ctx.script(inv, script, `git ${s.key}`);
  }
  const sub = a[i]?.value ?? null;
  const rest = a.slice(i + 1);
  // `GIT_CONFIG_KEY_0=alias.up GIT_CONFIG_VALUE_0='push --force' git up`: the alias is what runs.
  const alias =
    sub !== null
      ? settings.findLast((s) => s.oneShot && s.key.toLowerCase() === `alias.${sub.toLowerCase()}`)?.value?.value
      : undefined;
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
  // `ext::sh -c …` URLs: git's ext transport runs the rest as a command (`%` escapes a space).
  for (const w of rest)
    if (/^ext::/.test(w.value ?? ''))
      ctx.script(
        inv,
        { ...w, value: w.value!.slice(5).replace(/% /g, ' ').replace(/%%/g, '%') },
        'git ext:: transport',
      );
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
  const ops = operands(rest).map((w) => w.value);
  // The value of an option, separate (`--exec cmd`) or attached (`--exec=cmd`, `-xcmd`).
  const after = (short: string, long: string) => {
    for (let k = 0; k < rest.length && rest[k]!.value !== '--'; k++) {
      const v = rest[k]!.value ?? '';
      if (v === short || v === long) return rest[k + 1];
      if (v.startsWith(`${long}=`)) return { ...rest[k]!, value: v.slice(long.length + 1) };
      if (v.startsWith(short) && v.length > 2 && !v.startsWith('--')) return { ...rest[k]!, value: v.slice(2) };
    }
    return undefined;
  };
  switch (sub) {
    case 'difftool':
    case 'mergetool': {
      const cmd = after('-x', '--extcmd');
      if (cmd) {
        ctx.add(inv, {
          group: 'indirection',
          rule: 'inline_interpreter',
          reason: `git ${sub} -x runs a command`,
          at: [inv.word, a[i]],
        });
        ctx.script(inv, cmd, `git ${sub} --extcmd`);
      }
      break;
    }
    case 'clone':
    case 'fetch':
    case 'pull':
    case 'ls-remote': {
      const pack = after('-u', '--upload-pack');
      if (pack) ctx.script(inv, pack, `git ${sub} --upload-pack`);
      break;
    }
    case 'remote':
      if ((ops[0] === 'add' || ops[0] === 'set-url') && ops[1]) {
        const added = ctx.facts.get('git-remote-added') ?? new Set<string>();
        ctx.facts.set('git-remote-added', added.add(ops[1]));
      }
      break;
    case 'config':
      if (configWrite(rest)?.key.value === null)
        ctx.add(inv, {
          group: 'persist',
          rule: 'dynamic_script',
          reason: 'a git config key only known at run time',
          at: [inv.word, a[i]],
        });
      break;
    case 'submodule':
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
    case 'grep': {
      // `-O<pager>`, `--open-files-in-pager=<pager>` (the value is attached or absent; the long
      // name may be abbreviated): git runs the pager through the shell on the matching files.
      for (const w of rest) {
        const v = w.value ?? '';
        if (v === '--') break;
        const long = /^(--op[\w-]*)=(.+)$/s.exec(v);
        const pager =
          long && '--open-files-in-pager'.startsWith(long[1]!) ? long[2] : /^-[a-zA-Z]*O(.+)$/s.exec(v)?.[1];
        if (pager) ctx.script(inv, { ...w, value: pager }, 'git grep --open-files-in-pager');
      }
      break;
    }
    case 'rebase': {
      const cmd = after('-x', '--exec');
      if (cmd) ctx.script(inv, cmd, 'git rebase --exec');
      break;
    }
    default:
      break;
  }
};

export const GIT_RULES: Record<string, Rule> = { git };
