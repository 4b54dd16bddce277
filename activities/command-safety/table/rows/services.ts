/**
 * More of the machine itself (system): process supervisors, traffic shaping and network settings,
 * trust stores, macOS and SELinux security switches, boot and firmware, load generators, packages
 * installed around the package manager's checks, and language package managers run as root.
 */
import type { RowInput } from '../schema.js';

const S = 'system' as const;

export const SERVICE_ROWS: RowInput[] = [
  {
    id: 'trust_store',
    group: S,
    reason: '{program} changes which certificates or keychains the system trusts',
    when: [
      {
        program: ['security'],
        subcommand: [
          [
            'add-trusted-cert',
            'add-certificates',
            'remove-trusted-cert',
            'delete-certificate',
            'trust-settings-import',
            'authorizationdb',
            'import',
            'set-keychain-settings',
            'unlock-keychain',
            'set-key-partition-list',
          ],
        ],
      },
      { program: ['update-ca-certificates', 'update-ca-trust'] },
      { program: ['trust'], subcommand: [['anchor', 'extract-compat']] },
      { program: ['certutil'], word: ['/^-(A|D|M|N|addstore|delstore)$/i'] },
      { program: ['keytool'], word: ['/^-(importcert|import|delete|storepasswd)$/', '/cacerts/'] },
    ],
    match: [
      'security add-trusted-cert -d -k /Library/Keychains/System.keychain ca.pem',
      'update-ca-certificates',
      'keytool -importcert -file x.crt -keystore /usr/lib/jvm/default/lib/security/cacerts',
    ],
    notMatch: ['security find-certificate -a', 'keytool -list -keystore cacerts', 'trust list'],
  },
  {
    id: 'security_switch',
    group: S,
    reason: '{program} changes a security protection of the system',
    when: [
      { program: ['systemsetup'], word: ['/^-set/i'] },
      { program: ['xattr'], flags: { short: 'c' } },
      { program: ['xattr'], flags: { short: 'd' }, word: ['/quarantine|com\\.apple\\.(provenance|macl)/'] },
      { program: ['tccutil'], subcommand: [['reset']] },
      { program: ['semanage'], notWord: '/^(-l|--list|-E|--extract|-h)$/' },
      { program: ['setsebool', 'aa-teardown'] },
      { program: ['profiles'], subcommand: [['install', 'remove', 'renew']] },
    ],
    match: [
      'xattr -d com.apple.quarantine ./app',
      'xattr -cr ./App.app',
      'setsebool -P httpd_can_network_connect 1',
      'tccutil reset All',
    ],
    notMatch: ['xattr -l ./app', 'semanage port -l', 'systemsetup -getremotelogin'],
  },
  {
    id: 'boot_firmware',
    group: S,
    reason: '{program} changes the boot configuration or firmware',
    when: [
      { program: ['update-initramfs'], flags: { short: 'cud' } },
      { program: ['mkinitcpio'], flags: { short: 'gPp', long: ['--allpresets', '--generate', '--preset'] } },
      {
        program: [
          'dracut',
          'grub-reboot',
          'grub-set-default',
          'grub2-reboot',
          'grub2-set-default',
          'grub2-mkconfig',
          'grub2-install',
          'kernelstub',
          'bless',
          'bcdedit',
        ],
      },
      { program: ['grub-editenv'], subcommand: [['*'], ['set', 'unset', 'create']] },
      {
        program: ['mokutil'],
        word: ['/^-(?!(?:l|-list-enrolled|-sb-state|-list-new|-list-delete|t|-test-key|-pk|-kek|-db|-dbx|h|-help)$)/'],
      },
      {
        program: ['fwupdmgr'],
        subcommand: [
          [
            'update',
            'install',
            'downgrade',
            'reinstall',
            'switch-branch',
            'unlock',
            'activate',
            'clear-results',
            'modify-config',
            'set-approved-firmware',
            'enable-remote',
            'modify-remote',
          ],
        ],
      },
      {
        program: ['fwupdtool'],
        subcommand: [['install', 'install-blob', 'update', 'firmware-dump', 'activate', 'reinstall', 'switch-branch']],
      },
      { program: ['flashrom'], flags: { short: 'wE', long: ['--write', '--erase'] } },
      {
        program: ['sbctl'],
        subcommand: [['enroll-keys', 'sign', 'sign-all', 'reset', 'remove-file', 'create-keys', 'rotate-keys']],
      },
    ],
    match: [
      'update-initramfs -u',
      'grub-reboot 2',
      'mokutil --import key.der',
      'fwupdmgr update',
      'flashrom -p internal -w bios.bin',
    ],
    notMatch: ['mokutil --sb-state', 'fwupdmgr get-devices', 'flashrom -p internal -r backup.bin'],
  },
  {
    id: 'resource_exhaustion',
    group: S,
    reason: "{program} exhausts the machine's CPU, memory or disk",
    when: [
      {
        program: ['stress-ng', 'stress', 'memtester', 'cpuburn', 'burnP6'],
        notFlags: { long: ['--help', '--version'] },
      },
      { program: ['fio'], check: 'fio.targetsDisk', notFlags: { long: ['--help', '--version'] } },
    ],
    match: ['stress-ng --cpu 8 --timeout 60s', 'fio --name=x --filename=/dev/sdb --rw=write'],
    notMatch: ['stress --help', 'fio --name=x --size=10M --rw=read'],
  },
  {
    id: 'package_install',
    group: S,
    reason: "{program} installs packages outside the checks of the system's repositories, or upgrades the whole system",
    when: [
      { program: ['dpkg'], word: ['/^-[a-zA-Z]*i|^--(install|unpack)$/'] },
      // rpm's -i in query mode (`rpm -qi bash`) is "info".
      {
        program: ['rpm'],
        word: ['/^-[a-zA-Z]*[iUF]|^--(install|upgrade|freshen|reinstall)$/'],
        notWord: '/^-[a-zA-Z]*[qV]|^--(query|verify)$/',
      },
      { program: ['snap'], subcommand: [['install']], word: ['/^--(dangerous|devmode|jailmode)$/'] },
      { program: ['pacman'], word: ['/^-[a-zA-Z]*(S[a-zA-Z]*u|U)/'] },
      { program: ['apt', 'apt-get'], subcommand: [['install']], word: ['/\\.deb$/'] },
      { program: ['yum', 'dnf'], subcommand: [['install']], word: ['/^--nogpgcheck$/'] },
      { program: ['installer'], word: ['/^-pkg$/'] },
      { program: ['do-release-upgrade', 'pkcon'] },
    ],
    match: [
      'dpkg -i ./x.deb',
      'rpm -Uvh x.rpm',
      'pacman -Syu',
      'apt install ./x.deb',
      'snap install --dangerous x.snap',
    ],
    notMatch: ['rpm -qi bash', 'dpkg -l', 'pacman -Q', 'apt install jq'],
  },
  {
    id: 'root_package_install',
    group: S,
    reason: '{program} {subcommand} as root: install scripts run as root and files land in system folders',
    when: [
      { program: ['pip'], asRoot: true, subcommand: [['install', 'uninstall', 'download']] },
      { program: ['pip3', '/^pip\\d[\\d.]*$/'], asRoot: true, subcommand: [['install', 'uninstall']] },
      {
        program: ['npm'],
        asRoot: true,
        subcommand: [['install', 'i', 'add', 'uninstall', 'rm', 'update', 'ci', 'link']],
      },
      { program: ['pnpm'], asRoot: true, subcommand: [['add', 'install', 'i', 'remove']] },
      { program: ['yarn'], asRoot: true, subcommand: [['global', 'add']] },
      { program: ['gem'], asRoot: true, subcommand: [['install', 'update', 'uninstall']] },
      { program: ['cargo', 'go'], asRoot: true, subcommand: [['install']] },
      { program: ['composer'], asRoot: true, subcommand: [['global', 'require', 'install']] },
      { program: ['cpan', 'cpanm'], asRoot: true },
    ],
    match: ['sudo pip install requests', 'sudo npm install -g x', 'sudo pip3.11 install x', 'sudo cpanm Foo'],
    notMatch: ['pip install requests', 'sudo pip list'],
  },
  {
    id: 'script_file',
    group: 'indirection',
    reason: 'nmap runs an NSE script file (Lua code)',
    when: [{ program: ['nmap'], check: 'nmap.scriptFile' }],
    match: ['nmap --script=/tmp/x.nse host'],
    notMatch: ['nmap --script=default host', 'nmap -sV host'],
  },
  {
    id: 'alternate_program',
    group: 'indirection',
    reason: '{program} -S runs another program instead of ssh',
    when: [{ program: ['scp', 'sftp'], check: 'ssh.otherProgram' }],
    match: ['scp -S ./evil x host:y'],
    notMatch: ['scp x host:y', 'scp -S ssh x host:y'],
  },
  {
    id: 'setuid',
    group: S,
    reason: 'installs a setuid or setgid program',
    when: [{ program: ['install'], check: 'install.setuidMode' }],
    match: ['install -m 4755 x /usr/local/bin/x'],
    notMatch: ['install -m 755 x bin/x'],
  },
];
