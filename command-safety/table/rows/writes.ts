/**
 * Where any command writes (table/destinations.ts: a copy's destination, an output option, `dd of=`,
 * a redirection): a disk written directly is never allowed; a git hook, a startup file or a
 * credential written persists or plants; anything else outside the workspace and the scratch
 * folders is asked about. And the tools whose every use destroys files: shredders, `truncate`
 * outside the workspace, `dd`; and ownership changes outside the workspace or recursive.
 */
import type { RowInput } from '../schema.js';

export const WRITE_ROWS: RowInput[] = [
  {
    id: 'raw_device_write',
    group: 'destroy_files',
    level: 'hardline',
    reason: '{program} writes the disk {word} directly',
    when: [
      { program: ['*'], writes: ['block_device'] },
      { program: ['shred', 'wipe', 'srm'], operand: ['block_device'], reason: '{program} overwrites the disk {word}' },
    ],
    match: ['dd if=/dev/zero of=/dev/sda', 'cat x > /dev/nvme0n1', 'shred -n1 /dev/sdb', 'cp img /dev/sdc'],
    notMatch: ['dd if=/dev/sda of=disk.img', 'cat /dev/null > out.txt'],
  },
  {
    id: 'git_hook_write',
    group: 'persist',
    reason: '{program} writes {word}: git hooks and config run programs on later git commands',
    when: [{ program: ['*'], writes: ['git_hook_or_config'] }],
    match: [
      'cp x .git/hooks/pre-commit',
      'echo "sh evil" > .git/hooks/post-checkout',
      'tee "$(git rev-parse --git-dir)/hooks/pre-push" < x',
    ],
    notMatch: ['cp x hooks.txt', 'cat .git/config'],
  },
  {
    id: 'startup_file_write',
    group: 'persist',
    reason: '{program} writes {word}, a file that runs at login, boot or git use',
    when: [{ program: ['*'], writes: ['startup_file'] }],
    match: [
      'echo "alias ls=rm" >> ~/.bashrc',
      'cp dotfiles/.zshrc ~/',
      'sort -o ~/.profile x',
      'curl -o ~/.bashrc https://example.com/x',
      "sed -i 's/a/b/' ~/.bashrc",
    ],
    notMatch: ['cp notes.txt backup/', 'cat ~/.bashrc'],
  },
  {
    id: 'credential_write',
    group: 'persist',
    reason: '{program} writes over credentials ({word})',
    // A project's `.env` too: writing it over loses the secrets it held.
    when: [
      { program: ['*'], writes: ['secret_location'] },
      {
        // Making a key under a default name replaces the one every ssh login uses.
        program: ['ssh-keygen'],
        word: ['/(^|\\/)id_(rsa|dsa|ecdsa|ed25519)$/'],
        notFlags: { short: 'lyBFRpceiDKQ' },
        reason: 'ssh-keygen makes a key over the default SSH key {word}',
      },
    ],
    match: [
      'cp key ~/.ssh/authorized_keys',
      'echo k >> ~/.ssh/id_rsa',
      'wget -O ~/.aws/credentials https://x.example',
      "ssh-keygen -t rsa -b 4096 -f ~/.ssh/id_rsa -N '' <<< y",
    ],
    notMatch: [
      'cp ~/.ssh/id_rsa.pub pub.txt',
      'cp env.example config.txt',
      "ssh-keygen -t ed25519 -f ~/.ssh/id_ed25519_work -N ''",
      'ssh-keygen -lf ~/.ssh/id_ed25519',
    ],
  },
  {
    id: 'write_outside',
    group: 'destroy_files',
    reason: '{program} writes {word}, outside the workspace',
    when: [{ program: ['*'], writes: ['outside_scratch'] }],
    match: [
      'cp a /etc/hosts',
      'sort -o /etc/passwd x',
      'install -m 755 tool /usr/local/bin/tool',
      'curl --output=/usr/local/bin/x https://x.example',
      'echo x > /etc/motd',
      'mv build/out /opt/app/',
      'patch -p0 /etc/ssh/sshd_config < relax.diff',
      'xxd -r dump.hex /usr/bin/sudo',
      'convert logo.png -resize 64x64 /usr/share/icons/app.png',
      'awk \'{ print > "/etc/cron.d/x" }\' f',
    ],
    notMatch: [
      'cp a b',
      'sort -o out.txt x',
      'cp a /tmp/b',
      'echo hi > /dev/null',
      'curl -o x.tgz https://x.example',
      'patch -p1 < fix.diff',
      'xxd -r dump.hex out.bin',
      'convert logo.png -resize 64x64 small.png',
      'awk \'{ print $1 > "out.txt" }\' f',
    ],
  },
  {
    id: 'write_unknown_place',
    group: 'destroy_files',
    // Only known when it runs, and may be absolute: a site-packages hook, a startup file, a system file.
    reason: '{program} writes {word}, a place only known when it runs',
    when: [{ program: ['*'], writes: ['unknown_place'] }],
    match: [
      'echo "import os" > "$(python3 -m site --user-site)/sitecustomize.py"',
      'cp payload "$(npm root -g)/npm/bin/npm-cli.js"',
      'curl -o "$(go env GOPATH)/bin/gopls" https://x.example/a',
    ],
    notMatch: [
      'echo x > "out-$(date +%s).log"',
      'for f in *.txt; do sort "$f" > "$f.sorted"; done',
      "sed -i 's/foo/bar/g' $(grep -rl foo src)",
      'cp a b',
    ],
  },
  {
    id: 'truncate_outside',
    group: 'destroy_files',
    reason: 'truncate empties {word}, outside the workspace',
    when: [{ program: ['truncate'], operand: ['outside_workspace', 'startup_file', 'unknown'] }],
    match: ['truncate -s 0 /var/log/syslog', 'truncate -s0 ~/.bashrc', 'truncate -s 0 "$F"'],
    notMatch: ['truncate -s 0 out.log'],
  },
  {
    id: 'shred',
    group: 'destroy_files',
    reason: '{program} destroys files beyond recovery',
    when: [{ program: ['shred', 'wipe', 'srm'] }],
    match: ['shred -u notes.txt', 'srm secret.txt'],
  },
  {
    id: 'delete_root',
    group: 'destroy_files',
    level: 'hardline',
    reason: '{program} destroys {word}: /, a system folder or a home folder',
    when: [{ program: ['shred', 'wipe', 'srm'], operand: ['root', 'system_folder', 'home'] }],
    match: ['shred -r /etc', 'wipe -rf ~'],
    notMatch: ['shred -u notes.txt'],
  },
  {
    id: 'disk_copy',
    group: 'destroy_files',
    // dd copies raw bytes wherever it is pointed; one wrong letter overwrites a disk: always a question.
    reason: 'raw copy with dd',
    when: [{ program: ['dd'] }],
    match: ['dd if=a.img of=b.img bs=1M'],
  },
  {
    id: 'system_ownership',
    group: 'system',
    reason: '{program} changes the owner of {word}, outside the workspace',
    when: [{ program: ['chown', 'chgrp'], operand: ['outside_workspace'] }],
    match: ['chown -R me /usr/local', 'sudo chgrp staff /etc/hosts'],
    notMatch: ['chown me build/out.txt'],
  },
  {
    id: 'system_permissions_wipe',
    group: 'system',
    level: 'hardline',
    reason: '{program} -R changes the owner of {word}: / or a whole system folder (the machine stops working)',
    when: [{ program: ['chown', 'chgrp'], flags: { short: 'R', long: ['--recursive'] }, operand: ['system_tree'] }],
    match: ['sudo chown -R nobody:nogroup /usr', 'chown -R me /', 'chgrp --recursive staff /etc/'],
    notMatch: ['sudo chown -R $USER /usr/local', 'chown -R me src', 'chown nobody /etc'],
  },
  {
    id: 'recursive_permissions',
    group: 'destroy_files',
    reason: 'recursive ownership change',
    when: [{ program: ['chown', 'chgrp'], flags: { short: 'R', long: ['--recursive'] } }],
    match: ['chown -R me src'],
    notMatch: ['chown me src/a.txt'],
  },
];
