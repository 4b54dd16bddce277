/**
 * Version control other than git (group destroy_history): the verbs of Mercurial, Subversion,
 * Jujutsu, Fossil and Bazaar that discard local changes or remove history — `hg strip`, `hg
 * update --clean`, `hg purge`, `svn revert`, `svn delete ^/…`, `jj abandon`, `bzr uncommit`, and
 * their force pushes.
 */
import type { Rule } from '../invocation.js';
import { hasOption, operands } from '../options.js';

/** Per tool: subcommands (with an optional condition on the options) that destroy work or history. */
const DESTROYS: Record<string, Array<{ verb: RegExp; when?: { short?: string; long?: string[] }; what: string }>> = {
  hg: [
    {
      verb: /^(strip|prune|purge|clean|rollback|histedit|debugstrip|obsolete|uncommit)$/,
      what: 'removes commits or untracked files',
    },
    {
      verb: /^(update|up|checkout|co)$/,
      when: { short: 'C', long: ['--clean'] },
      what: 'discards uncommitted changes',
    },
    { verb: /^(revert)$/, what: 'discards uncommitted changes' },
    { verb: /^(push)$/, when: { short: 'f', long: ['--force'] }, what: 'force-pushes' },
    { verb: /^(phase)$/, when: { long: ['--force'] }, what: 'rewrites published history' },
  ],
  svn: [
    { verb: /^(revert)$/, what: 'discards uncommitted changes' },
    { verb: /^(delete|del|remove|rm)$/, what: 'deletes files or branches from the repository' },
    {
      verb: /^(cleanup)$/,
      when: { long: ['--remove-unversioned', '--remove-ignored'] },
      what: 'deletes unversioned files',
    },
    { verb: /^(switch|sw|update|up)$/, when: { long: ['--force'] }, what: 'overwrites local changes' },
  ],
  jj: [
    { verb: /^(abandon|restore)$/, what: 'drops changes' },
    { verb: /^(op)$/, what: 'rewinds the operation log' },
  ],
  fossil: [{ verb: /^(clean|revert|purge|scrub|rm|delete|forget)$/, what: 'discards changes or removes history' }],
  bzr: [
    { verb: /^(revert|uncommit|clean-tree)$/, what: 'discards changes or commits' },
    { verb: /^(push)$/, when: { long: ['--overwrite'] }, what: 'overwrites the remote branch' },
  ],
  brz: [
    { verb: /^(revert|uncommit|clean-tree)$/, what: 'discards changes or commits' },
    { verb: /^(push)$/, when: { long: ['--overwrite'] }, what: 'overwrites the remote branch' },
  ],
};

const vcs: Rule = (inv, ctx) => {
  const verb = operands(inv.args)[0]?.value ?? '';
  for (const d of DESTROYS[inv.name]!) {
    if (!d.verb.test(verb) || (d.when && !hasOption(inv.args, d.when))) continue;
    if (inv.name === 'jj' && verb === 'op' && !/^(restore|abandon|undo)$/.test(operands(inv.args)[1]?.value ?? ''))
      continue;
    return ctx.add(inv, { group: 'destroy_history', rule: 'vcs_discard', reason: `${inv.name} ${verb} ${d.what}` });
  }
};

export const VCS_RULES: Record<string, Rule> = Object.fromEntries(Object.keys(DESTROYS).map((n) => [n, vcs]));
