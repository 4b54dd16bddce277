/**
 * Classes of operands a table row can ask for (`operand: ['block_device']`): where a path points
 * (paths.ts) or what a word is, decided from its value after expansion. A word only known at run
 * time is of class `unknown` and of no other, and also of `unknown_place` when even where it points
 * is unknown: a path under a folder a command prints (`"$(python3 -m site --user-site)/x.py"`), so
 * it may be any absolute path.
 */
import {
  absolute,
  isBlockDevice,
  isCredentialPath,
  isGitHookOrConfig,
  isSecretFile,
  isStartupPath,
  isSystemTree,
  keepsWrites,
  placeOf,
} from '../paths.js';
import type { Word } from '../shell.js';

export const OPERAND_CLASSES = [
  'block_device',
  'secret_location',
  'credential',
  'system_folder',
  'system_tree',
  'home',
  'root',
  'outside_workspace',
  'outside_scratch',
  'startup_file',
  'git_hook_or_config',
  'kernel_setting',
  'sysrq',
  'url',
  'glob',
  'file',
  'unknown',
  'unknown_place',
] as const;
export type OperandClass = (typeof OPERAND_CLASSES)[number];

/** The path inside `of=/dev/sda` or `--device=/dev/sda`. */
const pathIn = (v: string) => (v.startsWith('/') || !v.includes('=') ? v : v.slice(v.indexOf('=') + 1));

const IS: Record<OperandClass, (v: string, cwd: string | null, w: Word) => boolean> = {
  block_device: (v) => isBlockDevice(pathIn(v)),
  secret_location: (v, cwd) => isSecretFile(v, cwd),
  credential: (v, cwd) => isCredentialPath(pathIn(v), cwd),
  system_folder: (v, cwd, w) => /^(root|system)$/.test(placeOf(v, cwd, w.glob)),
  // `/` or a whole top-level system folder (`/usr`, not `/usr/local`): paths.ts isSystemTree.
  system_tree: (v, cwd, w) => isSystemTree(v, cwd, w.glob),
  home: (v, cwd, w) => placeOf(v, cwd, w.glob) === 'home',
  root: (v, cwd, w) => placeOf(v, cwd, w.glob) === 'root',
  outside_workspace: (v, cwd, w) => !/^(workspace|unknown)$/.test(placeOf(v, cwd, w.glob)),
  // Outside the workspace and outside the scratch places anyone may write (/tmp, /dev/null, a tty).
  outside_scratch: (v, cwd, w) =>
    !/^\/(tmp|var\/tmp|dev\/(null|stdout|stderr|fd\/\d+|tty))(\/|$)/.test(absolute(v, cwd) ?? '') &&
    !/^(workspace|unknown)$/.test(placeOf(v, cwd, w.glob)),
  startup_file: (v, cwd) => isStartupPath(v, cwd),
  git_hook_or_config: (v) => isGitHookOrConfig(v),
  kernel_setting: (v) => /^\/proc\/sys\//.test(v),
  sysrq: (v) => v === '/proc/sysrq-trigger',
  url: (v) => /^[a-z][\w+.-]*:\/\/|^git@[\w.-]+:/i.test(v),
  glob: (_v, _cwd, w) => !!w.glob,
  // Somewhere that keeps what is written: not /dev/null, a standard stream or a terminal.
  file: (v, cwd) => keepsWrites(v, cwd),
  unknown: () => false,
  unknown_place: () => false,
};

/**
 * A path inside a folder a command names (`"$(python3 -m site --user-site)/x.py"`, `$(npm root
 * -g)/…`) may be any folder. A word with a literal start (`log-$(date +%s).txt`) stays relative; a
 * word that is the output itself (`sed -i … $(grep -rl foo src)`) is the workspace's file list of
 * everyday refactors; and one that starts with a variable is left alone, since loop variables over
 * the workspace's files (`for f in *.txt; do sort "$f" > "$f.sorted"; done`) are everyday work.
 */
const UNKNOWN_START = /^"?(?:\$\(.*\)|`.*`)"?\/[^/]/;

export function isOfClass(w: Word, cls: OperandClass, cwd: string | null): boolean {
  // `"$(git rev-parse --git-dir)/hooks/x"`: unknown, but written where git hooks live.
  if (w.value === null)
    return (
      cls === 'unknown' ||
      (cls === 'unknown_place' && UNKNOWN_START.test(w.raw)) ||
      (cls === 'git_hook_or_config' && /(^|\/)(\.git\/|hooks\/)|\$\(git rev-parse/.test(w.raw))
    );
  return IS[cls](w.value, cwd, w);
}
