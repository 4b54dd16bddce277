/**
 * Git configuration keys that make the user's `git` start a program (or write outside the
 * workspace), as data. A key matches by its section and name in any subsection — git ignores
 * `[core "x"] fsmonitor`, but removing it costs nothing and no parser quirk can then make it count.
 * Each row carries examples that must match, and `HARMLESS` examples that must not; both are
 * checked when the module loads. `include.path` and `includeIf.<condition>.path` are not here: the
 * guard follows them (see git-guard.ts).
 */
import { isAbsolute, resolve } from 'node:path';
import { isInside } from './host.js';
import type { ConfigEntry } from './git-config.js';
import { splitKey } from './git-config.js';

export interface KeyContext {
  /** The git directory the configuration belongs to (relative `core.worktree` values start there). */
  gitDir: string;
  workspace: string;
}

interface Row {
  section: string;
  /** Names (lower case) in that section; `*` for every name. */
  names: readonly string[] | '*';
  /** Text a file must contain for the row to match (default: the names, or the section for `*`). */
  mark?: string;
  /** When present, the value decides (the key alone is harmless). */
  runs?: (value: string | undefined, ctx: KeyContext) => boolean;
  why: string;
  examples: ReadonlyArray<[key: string, value: string]>;
}

const BOOLEAN = /^(?:true|false|yes|no|on|off|1|0|)$/i;

export const RUN_KEYS: readonly Row[] = [
  {
    section: 'core',
    names: ['fsmonitor', 'hookspath', 'sshcommand', 'pager', 'editor', 'askpass', 'gitproxy', 'alternaterefscommand'],
    why: 'a program git runs (status, log, fetch, commit) or a folder of hooks',
    examples: [
      ['core.fsmonitor', 'touch /tmp/x'],
      ['core.hooksPath', 'evil-hooks'],
      ['core.x.pager', 'sh -c id'],
    ],
  },
  {
    section: 'core',
    names: ['worktree'],
    runs: (v, c) => v === undefined || !isInside(c.workspace, isAbsolute(v) ? v : resolve(c.gitDir, v)),
    why: 'a working tree outside the workspace: checkout and reset would write there',
    examples: [['core.worktree', '/root']],
  },
  { section: 'sequence', names: ['editor'], why: 'the rebase editor', examples: [['sequence.editor', 'sh']] },
  {
    section: 'diff',
    names: ['external', 'textconv', 'command'],
    why: 'diff drivers (also chosen by .gitattributes)',
    examples: [
      ['diff.external', 'sh'],
      ['diff.bin.textconv', 'sh'],
    ],
  },
  { section: 'merge', names: ['driver'], why: 'merge drivers', examples: [['merge.ours.driver', 'sh %A']] },
  { section: 'difftool', names: ['cmd', 'path'], why: 'diff tools', examples: [['difftool.x.cmd', 'sh']] },
  { section: 'mergetool', names: ['cmd', 'path'], why: 'merge tools', examples: [['mergetool.x.path', '/bin/sh']] },
  {
    section: 'filter',
    names: ['clean', 'smudge', 'process'],
    why: 'content filters (chosen by .gitattributes, run by status, add, checkout)',
    examples: [['filter.lfs.clean', 'touch /tmp/x']],
  },
  {
    section: 'credential',
    names: ['helper'],
    why: 'credential helpers',
    examples: [['credential.https://h.helper', '!sh']],
  },
  {
    section: 'gpg',
    names: ['program', 'defaultkeycommand'],
    why: 'signing programs',
    examples: [
      ['gpg.program', 'sh'],
      ['gpg.ssh.program', 'sh'],
    ],
  },
  {
    section: 'uploadpack',
    names: ['packobjectshook'],
    why: 'a fetch hook',
    examples: [['uploadpack.packObjectsHook', 'sh']],
  },
  { section: 'alias', names: '*', why: 'aliases (`!cmd` runs a shell)', examples: [['alias.st', '!touch /tmp/x']] },
  {
    section: 'pager',
    names: '*',
    runs: (v) => v !== undefined && !BOOLEAN.test(v.trim()),
    why: 'a pager program for one command',
    examples: [['pager.log', 'touch /tmp/x;less']],
  },
  { section: 'interactive', names: ['difffilter'], why: 'add -p filter', examples: [['interactive.diffFilter', 'sh']] },
  {
    section: 'remote',
    names: ['uploadpack', 'receivepack'],
    why: 'programs run for fetch and push',
    examples: [['remote.origin.uploadpack', 'sh']],
  },
  { section: 'browser', names: ['cmd', 'path'], why: 'help browsers', examples: [['browser.x.cmd', 'sh']] },
  { section: 'man', names: ['cmd', 'path', 'viewer'], why: 'man viewers', examples: [['man.x.cmd', 'sh']] },
  { section: 'web', names: ['browser'], why: 'help browser', examples: [['web.browser', 'x']] },
  {
    section: 'sendemail',
    names: ['smtpserver', 'tocmd', 'cccmd', 'sendmailcmd', 'headercmd'],
    why: 'send-email programs',
    examples: [['sendemail.tocmd', 'sh']],
  },
  { section: 'trailer', names: ['command', 'cmd'], why: 'trailer commands', examples: [['trailer.x.cmd', 'sh']] },
  { section: 'hook', names: ['command'], why: 'hooks declared in configuration', examples: [['hook.x.command', 'sh']] },
  {
    section: 'protocol',
    names: ['allow'],
    why: 'allows the ext:: transport, which runs a command',
    examples: [['protocol.ext.allow', 'always']],
  },
  {
    section: 'submodule',
    names: ['update'],
    runs: (v) => v !== undefined && v.trim().startsWith('!'),
    mark: '!',
    why: 'a submodule update command',
    examples: [['submodule.x.update', '!touch /tmp/x']],
  },
  { section: 'guitool', names: ['cmd'], why: 'git gui tools', examples: [['guitool.x.cmd', 'sh']] },
  { section: 'gui', names: ['editor'], why: 'git gui editor', examples: [['gui.editor', 'sh']] },
  { section: 'imap', names: ['tunnel'], why: 'imap-send tunnel command', examples: [['imap.tunnel', 'sh']] },
  { section: 'instaweb', names: '*', why: 'instaweb server and browser', examples: [['instaweb.httpd', 'sh']] },
  { section: 'tar', names: ['command'], why: 'archive filters', examples: [['tar.tgz.command', 'sh']] },
];

/** Keys a new repository commonly has, which must survive the guard. */
const HARMLESS: ReadonlyArray<[string, string | undefined]> = [
  ['core.repositoryformatversion', '0'],
  ['core.bare', 'false'],
  ['core.worktree', '../../../sub'],
  ['remote.origin.url', 'https://example.com/x.git'],
  ['branch.main.merge', 'refs/heads/main'],
  ['pager.branch', 'false'],
  ['submodule.x.update', 'rebase'],
  ['user.name', 'a'],
  ['include.path', 'x'],
];

/** Words one of which a configuration file must contain to hold a key of the table, or an include. */
export const RUN_KEY_MARKS: readonly string[] = [
  ...new Set(['include', ...RUN_KEYS.flatMap((r) => (r.mark ? [r.mark] : r.names === '*' ? [r.section] : r.names))]),
];

/** Whether a listed configuration entry makes git run a program. */
export function runsProgram(e: ConfigEntry, ctx: KeyContext): boolean {
  const { section, name } = splitKey(e.key.toLowerCase());
  for (const row of RUN_KEYS) {
    if (row.section !== section) continue;
    if (row.names !== '*' && !row.names.includes(name)) continue;
    return row.runs ? row.runs(e.value, ctx) : true;
  }
  return false;
}

// The table is checked against its own examples when it loads.
{
  const ctx: KeyContext = { gitDir: '/ws/sub/.git/modules/sub', workspace: '/ws' };
  for (const row of RUN_KEYS)
    for (const [key, value] of row.examples)
      if (!runsProgram({ key, value }, ctx)) throw new Error(`git run-keys table: ${key}=${value} must match`);
  for (const [key, value] of HARMLESS)
    if (runsProgram({ key, value }, ctx)) throw new Error(`git run-keys table: ${key}=${value} must not match`);
}
