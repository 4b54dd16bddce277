/**
 * Disk tools whose verbs wipe, format or repartition (hardline), with or without a /dev path
 * (`gpart destroy ada0`, `zpool labelclear`, `diskutil eraseDisk`), and LVM and device-mapper
 * removals (the volume's data is lost; the disk survives). Any command naming a disk, power and
 * D-Bus stay in rules/devices.ts: they read every word or a joined text.
 */
import type { RowInput } from '../schema.js';

const MKFS = '/^(mkfs(\\..+)?|mke2fs|mkswap|mkdosfs|mkntfs|newfs(_\\w+)?|cfdisk|blkdiscard)$/';
/** A disk image file (`test.img`, `rootfs.raw`): formatting one changes a file, not a disk. */
const DISK_IMAGE = '/\\.(img|iso|raw|qcow2|vhdx?|vmdk|fs|image)$/';

export const DEVICE_ROWS: RowInput[] = [
  {
    id: 'mkfs',
    group: 'destroy_files',
    level: 'hardline',
    reason: '{program} {word} wipes, formats or repartitions a disk',
    when: [
      // `mkfs.ext4 -F test.img`: formatting a disk image file of the workspace or /tmp is not a disk.
      { program: [MKFS], notWord: DISK_IMAGE, reason: '{program} wipes, formats or repartitions a disk' },
      {
        program: [MKFS],
        operand: ['block_device', 'outside_scratch', 'unknown'],
        reason: '{program} wipes, formats or repartitions a disk',
      },
      { program: ['fdisk', 'gdisk'], notFlags: { short: 'l', long: ['--list'] } },
      {
        program: ['sfdisk'],
        notFlags: { short: 'ldJsV', long: ['--list', '--dump', '--json', '--show-size', '--verify'] },
      },
      { program: ['sgdisk'], notFlags: { short: 'piv', long: ['--print', '--info', '--verify'] } },
      { program: ['parted'], notFlags: { short: 'l', long: ['--list'] }, notWord: '/^print$/' },
      { program: ['parted'], word: ['/^(mklabel|mkpart|rm|resizepart|mkfs)$/'] },
      { program: ['wipefs'], flags: { short: 'ao', long: ['--all', '--offset'] } },
      { program: ['cryptsetup'], word: ['/^(luksFormat|erase|luksErase|reencrypt)$/'] },
      {
        program: ['gpart'],
        notFlags: { long: ['--help', '--version', '--dry-run'] },
        word: ['/^(destroy|delete|create|add|bootcode|resize|recover|set|unset|undo|commit)$/'],
      },
      {
        program: ['zpool'],
        notFlags: { long: ['--help', '--version', '--dry-run'] },
        word: ['/^(create|destroy|labelclear|add|attach|replace|split|initialize|trim)$/'],
      },
      {
        // A whole pool's datasets, recursively (`zfs destroy -r rpool`): not a dataset path or a snapshot.
        program: ['zfs'],
        subcommand: [['destroy']],
        flags: { short: 'rR' },
        notWord: '/[\\/@]/',
        reason: 'zfs destroy -r of a whole pool destroys every dataset on it',
      },
      {
        program: ['nvme'],
        notFlags: { long: ['--help', '--version', '--dry-run'] },
        word: [
          '/^(format|sanitize|write-zeroes|write-uncor|ns-delete|delete-ns|detach-ns|dsm|write|fw-download|fw-commit|fw-activate)$/',
        ],
      },
      {
        program: ['diskutil'],
        notFlags: { long: ['--help', '--version', '--dry-run'] },
        word: [
          '/^(erase\\w*|zero\\w*|partition\\w*|secureErase|randomDisk|reformat|delete\\w*|splitPartition|mergePartitions|resize\\w*|addPartition)$/i',
        ],
      },
      {
        program: ['mdadm'],
        notFlags: { long: ['--help', '--version', '--dry-run'] },
        word: ['/^(--zero-superblock|--create|-C|--build|-B|--grow|-G)$/'],
      },
      { program: ['bmaptool'], notFlags: { long: ['--help', '--version', '--dry-run'] }, word: ['/^copy$/'] },
      {
        program: ['hdparm'],
        notFlags: { long: ['--help', '--version', '--dry-run'] },
        word: [
          '/^--(security-erase|security-erase-enhanced|security-set-pass|trim-sector-ranges|write-sector|make-bad-sector|fwdownload\\S*|dco-restore|dco-setmax)$/',
        ],
      },
      { program: ['badblocks'], notFlags: { long: ['--help', '--version', '--dry-run'] }, word: ['/^-[a-zA-Z]*[wn]/'] },
      {
        program: ['pvremove', 'pvcreate', 'vgcreate', 'sg_format', 'sg_sanitize', 'sg_unmap', 'nwipe', 'mkudffs'],
        notFlags: { long: ['--help', '--version', '--dry-run'] },
        reason: '{program} wipes, formats or repartitions a disk',
      },
    ],
    match: [
      'gpart destroy -F ada0',
      'zpool labelclear -f /dev/sdb',
      'sudo zfs destroy -r rpool',
      'diskutil eraseDisk APFS X disk2',
      'nwipe',
      'badblocks -wsv /dev/sdb',
      'mkfs.ext4 /dev/sdb1',
      'mkfs.ext4 -L disk.img /dev/sdb1',
      'mkswap /dev/sdb2',
      'fdisk /dev/sda',
      'parted /dev/sda mklabel gpt',
      'wipefs -a /dev/sdb',
      'cryptsetup luksFormat /dev/sdb',
    ],
    notMatch: [
      'mkfs.ext4 -F test.img',
      'mkfs.vfat /tmp/fat.img',
      'zpool status',
      'zfs destroy -r tank/scratch@2024-01-01',
      'diskutil list',
      'nwipe --help',
      'badblocks -sv /dev/sdb',
      'fdisk -l',
      'parted -l',
      'parted /dev/sda print',
      'wipefs /dev/sdb',
      'cryptsetup status root',
    ],
  },
  {
    id: 'volume_remove',
    group: 'destroy_data',
    reason: '{program} removes or shrinks a logical volume (its data is lost)',
    when: [
      {
        program: ['lvremove', 'vgremove', 'lvreduce', 'vgreduce', 'lvresize'],
        notFlags: { short: 't', long: ['--test', '--help'] },
      },
      {
        program: ['dmsetup'],
        subcommand: [['remove', 'remove_all', 'wipe_table', 'clear', 'reload']],
        notFlags: { short: 't', long: ['--test', '--help'] },
      },
    ],
    match: ['lvremove -f vg0/data', 'dmsetup remove_all'],
    notMatch: ['lvremove --test vg0/data', 'dmsetup ls'],
  },
];
