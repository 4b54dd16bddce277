/**
 * Planting something that runs later (persist): services enabled at boot or login, transient
 * services, login hooks, `.envrc` allowed to run, containers that restart forever. Cron and `at`
 * (which also read the job's code) and in-place edits stay in rules/persist.ts.
 */
import type { RowInput } from '../schema.js';

export const PERSIST_ROWS: RowInput[] = [
  {
    id: 'service_enable',
    group: 'persist',
    reason: '{program} {subcommand}: a service that starts on its own',
    when: [
      {
        program: ['systemctl'],
        subcommand: [
          ['enable', 'link', 'preset', 'preset-all', 'reenable', 'edit', 'add-wants', 'add-requires', 'set-property'],
        ],
      },
      { program: ['launchctl'], subcommand: [['load', 'bootstrap', 'enable', 'submit', 'kickstart']] },
      { program: ['update-rc.d', 'chkconfig', 'rc-update'], reason: 'enables a boot service' },
      { program: ['loginctl'], word: ['/^enable-linger$/'], reason: 'keeps user services running after logout' },
    ],
    match: [
      'systemctl enable --now evil.service',
      'launchctl load ~/Library/LaunchAgents/x.plist',
      'update-rc.d x defaults',
      'loginctl enable-linger',
    ],
    notMatch: ['systemctl is-enabled nginx', 'launchctl list'],
  },
  {
    id: 'transient_service',
    group: 'persist',
    reason: 'runs a command as a system or user service, outside this call',
    when: [{ program: ['systemd-run'] }],
    match: ['systemd-run --user sleep 1000'],
  },
  {
    id: 'login_hook',
    group: 'persist',
    reason: 'installs a login or logout hook',
    when: [
      {
        program: ['defaults'],
        subcommand: [['write']],
        word: ['/LoginHook|LogoutHook|loginwindow|LaunchAgents|AutoLaunch|StartupItems/i'],
      },
    ],
    match: ['defaults write com.apple.loginwindow LoginHook /tmp/x.sh'],
    notMatch: ['defaults read com.apple.loginwindow', 'defaults write com.apple.dock autohide -bool true'],
  },
  {
    id: 'direnv_allow',
    group: 'persist',
    reason: 'lets .envrc run whenever the folder is entered',
    when: [{ program: ['direnv'], subcommand: [['allow']] }],
    match: ['direnv allow .'],
    notMatch: ['direnv status'],
  },
  {
    id: 'restart_always',
    group: 'persist',
    reason: 'a container that restarts forever, outside this session',
    when: [
      { program: ['docker', 'podman'], word: ['/^--restart=.*(always|unless-stopped)/'] },
      { program: ['docker', 'podman'], word: ['/^--restart$/', '/^(always|unless-stopped)$/'] },
    ],
    match: ['docker run -d --restart=always x', 'docker run -d --restart unless-stopped x'],
    notMatch: ['docker run --restart=no x', 'docker run --rm x'],
  },
];
