/**
 * Ways a sandboxed command can leave git configuration that the user's own `git` on the host later
 * runs. Each plant runs inside the sandbox in its own folder `<id>` of a workspace that is a git
 * repository with one commit; then git runs on the host in `where` (inside that folder), and the
 * planted command would create `{{MARK}}` — a host path the sandbox cannot see, so only a program
 * run on the host can create it. `{{OUTSIDE}}` is a host repository outside the workspace whose
 * config runs the marker (standing for any repository a command could point at).
 */
export interface GitPlant {
  id: string;
  command: string;
  /** Where the user runs git afterwards, relative to the plant's folder. */
  where: string;
  /** Extra host git commands for this plant (status, log and diff always run). */
  git?: string[][];
}

const FSM = `"touch {{MARK}}; false"`;
/** A repository `r` made in the sandbox, with one commit so that log and diff have something to show. */
const repo = (dir: string) =>
  `git init -q ${dir} && git -C ${dir} -c user.name=p -c user.email=p@p commit -q --allow-empty -m x`;

export const GIT_PLANTS: readonly GitPlant[] = [
  // The first five plants the guard was built against.
  { id: 'header-line', command: `${repo('r')} && printf '[core] fsmonitor = ${FSM}\\n' >> r/.git/config`, where: 'r' },
  {
    id: 'four-deep',
    command: `${repo('a/b/c/d/r')} && git -C a/b/c/d/r config core.fsmonitor ${FSM}`,
    where: 'a/b/c/d/r',
  },
  {
    id: 'dot-folder',
    command: `${repo('.cache/r')} && git -C .cache/r config core.fsmonitor ${FSM}`,
    where: '.cache/r',
  },
  {
    id: 'gitfile',
    command:
      `mkdir -p proj elsewhere && ${repo('tmp')} && mv tmp/.git elsewhere/gd && rm -rf tmp && ` +
      `printf 'gitdir: ../elsewhere/gd\\n' > proj/.git && git --git-dir=elsewhere/gd config core.fsmonitor ${FSM}`,
    where: 'proj',
  },
  {
    id: 'node-modules',
    command: `${repo('node_modules/pkg')} && git -C node_modules/pkg config core.fsmonitor ${FSM}`,
    where: 'node_modules/pkg',
  },
  // Beyond them.
  {
    id: 'pager',
    command: `${repo('r')} && git -C r config core.pager "touch {{MARK}}; cat"`,
    where: 'r',
    git: [['log'], ['-p', 'log']],
  },
  { id: 'alias', command: `${repo('r')} && git -C r config alias.st '!touch {{MARK}}'`, where: 'r', git: [['st']] },
  {
    id: 'ssh-command',
    command: `${repo('r')} && git -C r remote add origin ssh://example.invalid/x && git -C r config core.sshCommand ${FSM}`,
    where: 'r',
    git: [['fetch', 'origin']],
  },
  {
    id: 'clean-filter',
    command:
      `${repo('r')} && cd r && echo '* filter=x' > .gitattributes && echo v > f && ` +
      `git config filter.x.clean "touch {{MARK}}; cat" && git config filter.x.smudge cat`,
    where: 'r',
    git: [['add', '-A']],
  },
  {
    id: 'diff-external',
    command:
      `${repo('r')} && cd r && echo 1 > f && git add f && git -c user.name=p -c user.email=p@p commit -qm f && ` +
      `echo 2 > f && git config diff.external "touch {{MARK}}; true"`,
    where: 'r',
  },
  {
    id: 'nested-hook',
    command: `${repo('x/r')} && printf '#!/bin/sh\\ntouch {{MARK}}\\n' > x/r/.git/hooks/pre-commit && chmod +x x/r/.git/hooks/pre-commit`,
    where: 'x/r',
    git: [['-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-q', '--allow-empty', '-m', 'host']],
  },
  {
    id: 'hooks-path',
    command:
      `${repo('r')} && mkdir hk && printf '#!/bin/sh\\ntouch {{MARK}}\\n' > hk/pre-commit && chmod +x hk/pre-commit && ` +
      'git -C r config core.hooksPath ../hk',
    where: 'r',
    git: [['-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-q', '--allow-empty', '-m', 'host']],
  },
  {
    id: 'include-path',
    command: `${repo('r')} && printf '[core]\\n\\tfsmonitor = ${FSM}\\n' > inc.cfg && git -C r config include.path ../../inc.cfg`,
    where: 'r',
  },
  {
    id: 'include-later',
    // The include is harmless when made; the file it names is written afterwards, by a later command.
    command: `${repo('r')} && git -C r config include.path ../../later.cfg && printf '[core]\\n\\tfsmonitor = ${FSM}\\n' > later.cfg`,
    where: 'r',
  },
  {
    id: 'include-if-gitdir',
    command: `${repo('r')} && printf '[alias]\\n\\tst = !touch {{MARK}}\\n[core]\\n\\tfsmonitor = ${FSM}\\n' > inc.cfg && git -C r config 'includeIf.gitdir:**/r/.git.path' ../../inc.cfg`,
    where: 'r',
    git: [['st']],
  },
  {
    id: 'include-nested',
    command:
      `${repo('r')} && printf '[include]\\n\\tpath = two.cfg\\n' > one.cfg && printf '[core]\\n\\tfsmonitor = ${FSM}\\n' > two.cfg && ` +
      'git -C r config include.path ../../one.cfg',
    where: 'r',
  },
  {
    id: 'uppercase',
    command: `${repo('r')} && printf '[CORE]\\n\\tFSMONITOR = ${FSM}\\n' >> r/.git/config`,
    where: 'r',
  },
  {
    id: 'no-spaces-and-comments',
    command: `${repo('r')} && printf '# [core] fsmonitor = no\\n[core]fsmonitor=${FSM} ; trailing comment\\n' >> r/.git/config`,
    where: 'r',
  },
  {
    id: 'continuation-line',
    command: `${repo('r')} && printf '[core]\\n\\tfsmonitor = touch \\\\\\n{{MARK}}; false\\n' >> r/.git/config`,
    where: 'r',
  },
  {
    id: 'subsection-tricks',
    command: `${repo('r')} && printf '[core ""]\\n\\tfsmonitor = ${FSM}\\n[core "x"] pager = "touch {{MARK}}"\\n[core]\\tfsmonitor\\t=\\t${FSM}\\n' >> r/.git/config`,
    where: 'r',
  },
  {
    id: 'huge-config',
    command: `${repo('r')} && yes '# padding padding padding' | head -c 3000000 >> r/.git/config && printf '[core]\\n\\tfsmonitor = ${FSM}\\n' >> r/.git/config`,
    where: 'r',
  },
  {
    id: 'worktree-config',
    command:
      `${repo('r')} && git -C r config extensions.worktreeConfig true && ` +
      `printf '[core]\\n\\tfsmonitor = ${FSM}\\n' > r/.git/config.worktree`,
    where: 'r',
  },
  {
    id: 'bare-repository',
    command: `git init -q --bare b && git --git-dir=b config alias.st '!touch {{MARK}}'`,
    where: 'b',
    git: [['st']],
  },
  {
    id: 'symlinked-dotgit',
    command: `${repo('real')} && git -C real config core.fsmonitor ${FSM} && mkdir lk && ln -s ../real/.git lk/.git`,
    where: 'lk',
  },
  {
    id: 'dotgit-link-outside',
    command: 'mkdir lk && ln -s {{OUTSIDE}}/.git lk/.git',
    where: 'lk',
  },
  {
    id: 'gitfile-outside',
    command: `mkdir lk && printf 'gitdir: {{OUTSIDE}}/.git\\n' > lk/.git`,
    where: 'lk',
  },
  {
    id: 'config-link-outside',
    command: `${repo('r')} && rm r/.git/config && ln -s {{OUTSIDE}}/.git/config r/.git/config`,
    where: 'r',
  },
  {
    id: 'worktree-commondir',
    command:
      `${repo('r')} && ${repo('evil')} && git -C evil config core.fsmonitor ${FSM} && ` +
      'git -C r worktree add -q ../wt && echo "$PWD/evil/.git" > r/.git/worktrees/wt/commondir',
    where: 'wt',
  },
  {
    id: 'hooks-link',
    command: `${repo('r')} && mkdir hk && printf '#!/bin/sh\\ntouch {{MARK}}\\n' > hk/pre-commit && chmod +x hk/pre-commit && rm -rf r/.git/hooks && ln -s ../../hk r/.git/hooks`,
    where: 'r',
    git: [['-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-q', '--allow-empty', '-m', 'host']],
  },
  {
    id: 'commondir-link',
    // A common directory needs objects and refs, not HEAD: nothing else marks it as git's.
    command:
      `${repo('r')} && git -C r worktree add -q ../wt && mkdir -p cd/objects cd/refs && ` +
      `printf '[core]\\n\\tfsmonitor = ${FSM}\\n' > cd/config && echo "$PWD/cd" > cdpath && ` +
      'rm r/.git/worktrees/wt/commondir && ln -s ../../../../cdpath r/.git/worktrees/wt/commondir',
    where: 'wt',
  },
];
