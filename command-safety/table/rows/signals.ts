/**
 * Signals (system): killing every process (hardline), signalling init, killing processes named
 * only at run time or by a pattern every process matches, and force-kills that leave no chance to
 * clean up. Which signal `kill` sends and to whom depends on position, so those patterns are named
 * checks (table/signal-checks.ts); a signal to init that shuts the machine down is a pattern of
 * the shutdown row (system.ts). Stopping one's own processes with TERM or INT stays everyday.
 */
import type { PatternInput, RowInput } from '../schema.js';

const PKILL = ['pkill', 'killall'];

/** `kill 1`, `kill -INT 1`, `kill -s RTMIN+4 1`: init reads these as shut down or reboot. */
export const SIGNAL_SHUTDOWN: PatternInput = {
  program: ['kill'],
  check: 'kill.initShutdown',
  reason: 'a signal to init (pid 1) that shuts the machine down or reboots it',
};

export const SIGNAL_ROWS: RowInput[] = [
  {
    id: 'kill_all',
    group: 'system',
    level: 'hardline',
    reason: 'kills every process',
    when: [{ program: ['killall5'] }, { program: ['kill'], check: 'kill.everyProcess' }],
    match: ['killall5 -9', 'kill -9 -1', 'kill -- -1', 'kill -1', 'kill -s KILL -1', 'kill -n 9 -1'],
    notMatch: ['kill -HUP 4242', 'kill -9 4242'],
  },
  {
    id: 'kill_init',
    group: 'system',
    reason: 'signals init (pid 1)',
    when: [{ program: ['kill'], check: 'kill.init' }],
    match: ['kill -9 1', 'kill -STOP 1', 'sudo kill -KILL 1'],
    notMatch: ['kill -0 1', 'kill -9 12', 'kill -TERM 1'],
  },
  {
    id: 'kill_many',
    group: 'system',
    reason: '{program} kills processes named only at run time',
    when: [
      { program: ['kill'], check: 'kill.stdinTargets' },
      { program: ['pkill'], check: 'pkill.everyProcessPattern', reason: 'pkill with a pattern every process matches' },
      { program: PKILL, check: 'pkill.initChildren', reason: '{program} -P 1 kills every process init started' },
      {
        program: PKILL,
        check: 'pkill.everyProcessOfOwner',
        reason: '{program} kills every process of a user, group or session (this session included)',
      },
      // `fuser -k 8000/tcp` stops what holds a development port, as `kill $(lsof -t -i:8000)` does;
      // a file, a mount or a port below 1024 (`22/tcp`: sshd) still asks.
      {
        program: ['fuser'],
        flags: { short: 'k', long: ['--kill'] },
        word: ['/^(?!-)(?![1-9]\\d{3,4}\\/(tcp|udp)$)/'],
        reason: 'fuser -k kills every process using the files or mounts',
      },
    ],
    match: [
      'pgrep node | xargs kill',
      'pkill -f .',
      "pkill -f '.*'",
      'pkill -P 1',
      'fuser -km /mnt/data',
      'fuser -k 22/tcp',
      'pkill -u "$USER"',
      'killall -u me',
    ],
    notMatch: [
      'pgrep node | xargs kill -0',
      'pkill -f vite',
      'pkill -P 4242',
      'fuser -v /mnt/data',
      'fuser -k 8000/tcp',
      'pkill -u me node',
      'killall -u me vite',
    ],
  },
  {
    id: 'kill_system_daemon',
    group: 'system',
    reason: '{program} signals a system daemon (logging, login, containers, the network or init stop working)',
    when: [
      {
        program: PKILL,
        word: [
          '/^(systemd(-[\\w-]+)?|init|sshd|journald|rsyslogd|syslog-ng|auditd|crond?|atd|dbus-daemon|dbus|polkitd|udevd|NetworkManager|networkd|wpa_supplicant|dhclient|dockerd|containerd|kubelet|firewalld|ufw|agetty|login|gdm|lightdm|Xorg)$/',
        ],
      },
    ],
    match: ['sudo pkill -STOP systemd-journald', 'sudo pkill sshd', 'pkill -f dockerd', 'pkill -9 kubelet'],
    notMatch: ['pkill -f vite', 'pkill node', 'pkill -f sshd-tunnel-dev'],
  },
  {
    id: 'force_kill',
    group: 'system',
    reason: '{program} -9 force-kills processes (no chance to clean up)',
    when: [
      { program: ['kill'], check: 'kill.forceSignal' },
      { program: PKILL, word: ['/^-(9|KILL|SIGKILL)$/i'] },
      { program: PKILL, check: 'pkill.forceSignal' },
      { program: PKILL, check: 'pkill.rootUser', reason: "{program} of root's processes" },
      { program: ['killall'], reason: 'killall kills every process with that name' },
    ],
    match: [
      'kill -9 4242',
      'kill -s SIGKILL 777',
      'pkill -9 node',
      'pkill --signal=KILL node',
      'pkill -u root sshd',
      'killall nginx',
    ],
    notMatch: ['kill 12345', 'kill -15 4242', 'pkill -f vite', 'pkill -INT -f runserver'],
  },
];
