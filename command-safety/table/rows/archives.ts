/**
 * Archives and tools that rewrite files in place (destroy_files): archivers that delete what they
 * pack, compressors that replace a whole tree, extraction over a folder outside the workspace,
 * renames that overwrite, in-place encryption, hole punching, clearing the shell's history, and
 * openssl loading an engine from a file.
 */
import type { RowInput } from '../schema.js';

const TAR = ['tar', 'bsdtar', 'gtar'];

export const ARCHIVE_ROWS: RowInput[] = [
  {
    id: 'archive_delete',
    group: 'destroy_files',
    reason: '{program} deletes the files it archives',
    when: [
      { program: TAR, flags: { long: ['--remove-files'] } },
      { program: ['zip'], word: ['/^-[a-zA-Z0-9]*m|^--move$/'] },
      { program: ['7z', '7za', '7zz'], word: ['/^-sdel$/'] },
      { program: ['rar', 'unrar'], subcommand: [['m', 'mf']] },
      { program: ['rar', 'unrar'], word: ['/^-(df|dr)$/'] },
    ],
    match: ['tar czf x.tgz src --remove-files', 'zip -rm out.zip docs', '7z a -sdel x.7z logs', 'rar m x.rar logs'],
    notMatch: ['tar czf x.tgz src', 'zip -r out.zip docs', '7z a x.7z logs'],
  },
  {
    id: 'extract_outside',
    group: 'destroy_files',
    reason: '{program} extracts over a folder outside the workspace (existing files are replaced)',
    when: [
      {
        program: TAR,
        check: 'tar.extracts',
        flags: { short: 'P', long: ['--absolute-names'] },
        reason: '{program} -P extracts to the absolute paths stored in the archive',
      },
      // Old-style bundles without a dash: `tar xPf a.tar`.
      {
        program: TAR,
        subcommand: [['/^[a-zA-Z]*(x[a-zA-Z]*P|P[a-zA-Z]*x)[a-zA-Z]*$/']],
        reason: '{program} -P extracts to the absolute paths stored in the archive',
      },
      { program: [...TAR, 'unzip', '7z', '7za', '7zz', 'rar', 'unrar'], check: 'archive.extractsOutside' },
    ],
    match: [
      'tar -xzf a.tgz -C /',
      'tar xzf a.tgz --directory=/usr/local',
      'tar -xPf a.tar',
      'unzip a.zip -d /usr/local',
      '7z x a.7z -o/etc',
      'unrar x a.rar /etc/',
    ],
    notMatch: ['tar -xzf a.tgz', 'tar -xzf a.tgz -C /tmp/x', 'tar -czf /tmp/a.tgz src', 'unzip -l /tmp/a.zip'],
  },
  {
    id: 'compress_tree',
    group: 'destroy_files',
    reason: '{program} -r replaces every file under the folder',
    when: [
      {
        program: ['gzip', 'pigz'],
        flags: { short: 'r', long: ['--recursive'] },
        notFlags: { short: 'ctlk', long: ['--stdout', '--test', '--list', '--keep'] },
      },
    ],
    match: ['gzip -r logs', 'pigz --recursive data'],
    notMatch: ['gzip -rk logs', 'gzip big.log', 'gzip -rc logs'],
  },
  {
    id: 'rename_overwrite',
    group: 'destroy_files',
    reason: 'rename -f over many files overwrites files whose new names collide',
    when: [
      { program: ['rename', 'file-rename', 'prename'], flags: { short: 'f', long: ['--force'] }, operand: ['glob'] },
    ],
    match: ["rename -f 's/.*/x/' *.txt"],
    notMatch: ["rename 's/a/b/' *.txt", "rename -f 's/a/b/' one.txt"],
  },
  {
    id: 'history_clear',
    group: 'destroy_files',
    reason: 'history -c / -d erases the shell history',
    when: [{ program: ['history'], word: ['/^-[a-zA-Z]*[cd]/'] }],
    match: ['history -c', 'history -d 10'],
    notMatch: ['history', 'history 20'],
  },
  {
    id: 'history_off',
    group: 'destroy_files',
    reason: 'stops the shell keeping its history, so what runs next leaves no trace',
    when: [
      { program: ['unset'], word: ['/^HIST(FILE|SIZE|FILESIZE)$/'] },
      { program: ['set'], word: ['/^\\+o$/', '/^history$/'] },
      // `HISTFILE=/dev/null`, `export HISTSIZE=0` are assignments, judged with the others (rules/environment.ts).
    ],
    match: ['unset HISTFILE', 'set +o history', 'unset -v HISTFILE'],
    notMatch: ['unset FOO', 'set -o pipefail', 'export HISTSIZE=100000', 'history 20', 'set +o errexit'],
  },
  {
    id: 'punch_hole',
    group: 'destroy_files',
    reason: 'fallocate deallocates or shifts part of a file (its data is lost)',
    when: [
      {
        program: ['fallocate'],
        word: ['/^(-[a-zA-Z]*[pcz]|--punch-hole|--collapse-range|--zero-range|--insert-range)$/'],
      },
    ],
    match: ['fallocate -p -o 0 -l 4096 data.bin', 'fallocate --collapse-range -o 0 -l 4096 data.bin'],
    notMatch: ['fallocate -l 10M test.img'],
  },
  {
    id: 'encrypt_in_place',
    group: 'destroy_files',
    reason: '{program} encrypts or decrypts files in place',
    when: [
      {
        program: ['ccrypt', 'ccencrypt', 'ccdecrypt'],
        notFlags: { short: 'c', long: ['--cat', '--help', '--version'] },
      },
      { program: ['openssl'], check: 'openssl.inPlace', reason: 'openssl writes its output over its input file' },
    ],
    match: ['ccrypt -r ~/Documents', 'openssl enc -aes-256-cbc -in notes.txt -out notes.txt'],
    notMatch: ['ccrypt -c secret.cpt', 'openssl enc -aes-256-cbc -in notes.txt -out notes.enc'],
  },
  {
    id: 'loads_library',
    group: 'indirection',
    reason: 'openssl loads an engine or provider from a file (code it runs)',
    when: [{ program: ['openssl'], check: 'openssl.engineFile' }],
    match: ['openssl req -engine ./evil.so -new', 'openssl list -provider-path /tmp/p -provider x'],
    notMatch: ['openssl req -engine pkcs11 -new', 'openssl version'],
  },
];
