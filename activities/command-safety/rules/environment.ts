/**
 * What a command's redirections and environment do, whatever the command: `> /dev/sda` writes a
 * disk, `>> ~/.bashrc` persists, `< ~/.ssh/id_rsa` reads a key, `>& /dev/tcp/host/port` opens a
 * network connection; `LD_PRELOAD=…`, `BASH_ENV=…`, `PROMPT_COMMAND=…` and `BASH_FUNC_x%%=…` run
 * code the command line does not show, and a `PATH` that puts the workspace or /tmp first makes
 * every later command name a question.
 */
import type { Invocation, RuleContext } from '../invocation.js';
import { isCredentialPath, isProcEnviron } from '../paths.js';
import { writesTo } from './files.js';

const OUTPUT = /^(>|>>|>\||&>|&>>|>&|<>)$/;

export function checkRedirects(inv: Invocation, ctx: RuleContext): void {
  for (const r of inv.cmd.redirects) {
    const t = r.target;
    const v = t?.value;
    if (!t || v === null || v === undefined) continue;
    if (/^\/dev\/(tcp|udp)\//.test(v)) {
      ctx.add(inv, {
        group: 'exfiltrate',
        rule: 'dev_tcp',
        reason: 'opens a network connection through /dev/tcp (a reverse shell or an upload)',
        at: [t],
      });
      continue;
    }
    if (r.op === '>&' && /^\d+$/.test(v)) continue;
    if (OUTPUT.test(r.op)) {
      if (v === '/proc/sysrq-trigger')
        ctx.add(inv, {
          level: 'hardline',
          group: 'system',
          rule: 'shutdown',
          reason: 'a sysrq request (reboots, powers off or crashes the machine)',
          at: [t],
        });
      else if (/^\/proc\/sys\//.test(v))
        ctx.add(inv, { group: 'system', rule: 'kernel_setting', reason: 'changes a kernel setting', at: [t] });
      else if (
        /^\/(dev|sys)\//.test(v) &&
        !/^\/dev\/(null|stdout|stderr|tty|fd\/\d+|zero)$/.test(v) &&
        !/^\/dev\/(sd|nvme|hd|vd|xvd|mmcblk|disk|dm-|md|mapper|loop|sr|nbd|zd)/.test(v)
      )
        ctx.add(inv, {
          group: 'system',
          rule: 'device_write',
          reason: 'writes to a device or kernel interface',
          at: [t],
        });
      else writesTo(ctx, inv, t, 'a redirection writes');
    } else if (r.op === '<' || r.op === '<&') {
      if (isProcEnviron(v))
        ctx.add(inv, {
          group: 'exfiltrate',
          rule: 'proc_environ',
          reason: 'reads the environment of a process',
          at: [t],
        });
      else if (isCredentialPath(v, inv.cmd.cwd))
        ctx.add(inv, { group: 'exfiltrate', rule: 'credential_read', reason: 'reads credentials', at: [t] });
    }
  }
}

/** Variables whose value is code (or a library) the shell or the loader runs. */
const CODE_VARS =
  /^(LD_PRELOAD|LD_AUDIT|LD_LIBRARY_PATH|DYLD_INSERT_LIBRARIES|DYLD_LIBRARY_PATH|BASH_ENV|ENV|PROMPT_COMMAND|PS0|PS4|SHELLOPTS|BASHOPTS|IFS|GIT_SSH_COMMAND|GIT_SSH|GIT_EXTERNAL_DIFF|GIT_PAGER|GIT_EDITOR|GIT_ASKPASS|GIT_PROXY_COMMAND|GIT_CONFIG_GLOBAL|GIT_CONFIG_SYSTEM|GIT_EXEC_PATH|PAGER|EDITOR|VISUAL|SUDO_ASKPASS|SSH_ASKPASS|NODE_OPTIONS|PYTHONSTARTUP|PERL5OPT|RUBYOPT|LESSOPEN|LESSCLOSE)$/;

export function checkAssignments(inv: Invocation, ctx: RuleContext): void {
  for (const a of inv.env) {
    if (a.name.startsWith('BASH_FUNC_')) {
      ctx.add(inv, {
        group: 'indirection',
        rule: 'exported_function',
        reason: 'defines a shell function through the environment',
        at: [a.value],
      });
      if (a.value.value)
        ctx.script(inv, { ...a.value, value: a.value.value.replace(/^\(\)\s*/, '') }, 'an exported function');
      continue;
    }
    if (a.name === 'PATH') {
      // `.`, an empty entry (the current folder) or a world-writable folder first: planted programs win.
      const dirs = a.value.raw.replace(/^["']|["']$/g, '').split(':');
      if (dirs.some((d) => d === '' || d === '.' || d === './' || /^\/(tmp|var\/tmp|dev\/shm)(\/|$)/.test(d)))
        ctx.add(inv, {
          group: 'indirection',
          rule: 'path_hijack',
          reason: 'puts the current folder or /tmp in PATH: command names may run planted programs',
          at: [a.value],
        });
      continue;
    }
    if (!CODE_VARS.test(a.name)) continue;
    // `EDITOR=vim git commit`, `PAGER=cat git log`: a plain, well-known program is everyday.
    if (
      /^(PAGER|EDITOR|VISUAL|GIT_PAGER|GIT_EDITOR)$/.test(a.name) &&
      /^(cat|less|more|vim?|nvim|nano|emacs|code( --wait)?|true|most|bat|delta)$/.test(a.value.value ?? '')
    )
      continue;
    ctx.add(inv, {
      group: 'indirection',
      rule: 'code_in_environment',
      reason: `${a.name} makes the command run code the command line does not show`,
      at: [a.value],
    });
    if (
      /^(PROMPT_COMMAND|PS0|GIT_SSH_COMMAND|GIT_PROXY_COMMAND|PAGER|EDITOR|VISUAL|GIT_PAGER|GIT_EDITOR|GIT_EXTERNAL_DIFF)$/.test(
        a.name,
      )
    )
      ctx.script(inv, a.value, `${a.name}`);
  }
}
