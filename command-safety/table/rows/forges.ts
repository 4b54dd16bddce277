/**
 * The GitHub and GitLab CLIs (`gh`, `glab`): deleting repositories and releases (destroy_history),
 * publishing releases, merging or approving pull requests, starting CI workflows and making a
 * repository public (publish), public gists (exfiltrate), and writes through the API or to the
 * repository's secrets (destroy_infrastructure). Printing the forge token is a credential_read
 * pattern (git.ts).
 */
import type { RowInput } from '../schema.js';

const FORGE = ['gh', 'glab'];
const METHOD = { short: 'X', long: ['--method'] };
const WRITE_METHOD = '/^(DELETE|PUT|PATCH|POST)$/i';
/** Fields make `gh api` send a POST unless a method says otherwise. */
const FIELDS = '/^(-f|-F|--field|--raw-field|--input)$|^--(field|raw-field|input)=/';

export const FORGE_ROWS: RowInput[] = [
  {
    id: 'forge_repo_delete',
    group: 'destroy_history',
    reason: '{program} {subcommand}',
    when: [{ program: FORGE, subcommand: [['repo'], ['delete', 'archive']] }],
    match: ['gh repo delete a/b --yes', 'gh repo archive a/b', 'glab repo delete a/b'],
    notMatch: ['gh repo view a/b'],
  },
  {
    id: 'forge_release_delete',
    group: 'destroy_history',
    reason: 'deleting a release',
    when: [{ program: FORGE, subcommand: [['release'], ['delete']] }],
    match: ['gh release delete v1', 'gh -R a/b release delete v1'],
    notMatch: ['gh release list'],
  },
  {
    id: 'release_publish',
    group: 'publish',
    reason: 'publishing a release ({program} {subcommand})',
    when: [{ program: FORGE, subcommand: [['release'], ['create', 'upload', 'edit']] }],
    match: ['gh release create v1 dist/x.tgz', 'gh release upload v1 x.tgz', 'gh release edit v1 --draft=false'],
    notMatch: ['gh release view v1'],
  },
  {
    id: 'merge_request',
    group: 'publish',
    reason: 'merging a pull request',
    when: [
      { program: FORGE, subcommand: [['pr', 'mr'], ['merge']] },
      { program: FORGE, subcommand: [['pr', 'mr'], ['approve']], reason: 'approves a pull request' },
      {
        program: FORGE,
        subcommand: [['pr', 'mr'], ['review']],
        flags: { short: 'a', long: ['--approve'] },
        reason: 'approves a pull request',
      },
    ],
    match: ['gh pr merge 12 --squash', 'glab mr merge 3', 'gh pr review 12 --approve', 'glab mr approve 3'],
    notMatch: ['gh pr view 12', 'gh pr create --fill', 'gh pr review 12 --comment -b ok'],
  },
  {
    id: 'gist_create',
    group: 'exfiltrate',
    reason: 'uploads files to a gist',
    when: [{ program: FORGE, subcommand: [['gist'], ['create']] }],
    match: ['gh gist create notes.txt'],
    notMatch: ['gh gist list'],
  },
  {
    id: 'forge_api_write',
    group: 'destroy_infrastructure',
    reason: '{program} api writes through the API',
    when: [
      { program: FORGE, subcommand: [['api']], flags: METHOD, word: [WRITE_METHOD] },
      { program: FORGE, subcommand: [['api']], word: [FIELDS], notFlags: METHOD },
      { program: FORGE, subcommand: [['api']], word: [FIELDS, WRITE_METHOD] },
    ],
    match: [
      'gh api -X DELETE repos/a/b',
      'gh api --method PUT repos/a/b/topics -f x=y',
      'gh api repos/a/b/issues -f title=x',
      'gh api --input body.json repos/a/b/dispatches',
    ],
    notMatch: ['gh api repos/a/b/issues', 'gh api -X GET repos/a/b/issues -f state=open'],
  },
  {
    id: 'forge_secret',
    group: 'destroy_infrastructure',
    reason: '{program} {subcommand}',
    when: [{ program: FORGE, subcommand: [['secret'], ['set', 'delete']] }],
    match: ['gh secret set TOKEN -b x', 'gh secret delete TOKEN'],
    notMatch: ['gh secret list'],
  },
  {
    id: 'workflow_run',
    group: 'publish',
    reason: 'starts a CI workflow ({program} {subcommand})',
    when: [
      { program: FORGE, subcommand: [['workflow'], ['run', 'enable']] },
      { program: FORGE, subcommand: [['run'], ['rerun']], reason: 'reruns a CI workflow' },
    ],
    match: ['gh workflow run deploy.yml', 'gh workflow enable deploy.yml', 'gh run rerun 123'],
    notMatch: ['gh workflow list', 'gh run list'],
  },
  {
    id: 'repo_public',
    group: 'publish',
    reason: 'makes a repository public ({program} {subcommand})',
    when: [
      {
        program: FORGE,
        subcommand: [['repo'], ['edit', 'create']],
        word: ['/^(public|--public|--visibility=public)$/'],
      },
    ],
    match: ['gh repo edit --visibility=public', 'gh repo create x --public'],
    notMatch: ['gh repo create x --private'],
  },
];
