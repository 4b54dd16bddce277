/**
 * Version control other than git (destroy_history): the verbs of Mercurial, Subversion, Jujutsu,
 * Fossil and Bazaar/Breezy that discard local changes or remove history, and their force pushes.
 */
import type { RowInput } from '../schema.js';

export const VCS_ROWS: RowInput[] = [
  {
    id: 'vcs_discard',
    group: 'destroy_history',
    reason: '{program} {subcommand} discards local changes or removes history',
    when: [
      {
        program: ['hg'],
        subcommand: [
          ['strip', 'prune', 'purge', 'clean', 'rollback', 'histedit', 'debugstrip', 'obsolete', 'uncommit', 'revert'],
        ],
      },
      { program: ['hg'], subcommand: [['update', 'up', 'checkout', 'co']], flags: { short: 'C', long: ['--clean'] } },
      { program: ['hg'], subcommand: [['push']], flags: { short: 'f', long: ['--force'] } },
      { program: ['hg'], subcommand: [['phase']], flags: { long: ['--force'] } },
      { program: ['svn'], subcommand: [['revert', 'delete', 'del', 'remove', 'rm']] },
      { program: ['svn'], subcommand: [['cleanup']], flags: { long: ['--remove-unversioned', '--remove-ignored'] } },
      { program: ['svn'], subcommand: [['switch', 'sw', 'update', 'up']], flags: { long: ['--force'] } },
      { program: ['jj'], subcommand: [['abandon', 'restore']] },
      { program: ['jj'], subcommand: [['op'], ['restore', 'abandon', 'undo']] },
      { program: ['fossil'], subcommand: [['clean', 'revert', 'purge', 'scrub', 'rm', 'delete', 'forget']] },
      { program: ['bzr', 'brz'], subcommand: [['revert', 'uncommit', 'clean-tree']] },
      { program: ['bzr', 'brz'], subcommand: [['push']], flags: { long: ['--overwrite'] } },
    ],
    match: [
      'hg strip -r 5',
      'hg up -C',
      'hg push --forc',
      'svn delete ^/branches/x -m gone',
      'jj op restore abc',
      'brz push --overwrite',
    ],
    notMatch: ['hg status', 'hg update tip', 'svn update', 'jj op log', 'bzr push'],
  },
];
