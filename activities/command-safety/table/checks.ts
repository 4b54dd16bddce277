/**
 * Named checks: the data-flow cases a table row cannot say with a program, a subcommand, options
 * and operand classes (a value inside an option, an earlier command of the same line). A row names
 * one (`check: 'fio.targetsDisk'`); each returns the words that made it hold, or undefined. The list
 * is short on purpose: a new case is a row first, a check only when a row cannot say it.
 */
import type { Invocation } from '../invocation.js';
import { optionValue } from '../options.js';
import type { Word } from '../shell.js';

export type Check = (inv: Invocation) => ReadonlyArray<Word | undefined> | undefined;

const CHECKS_TABLE = {
  /** `fio --filename=/dev/sda`, `--size=100G`: a benchmark that writes a disk or fills one. */
  'fio.targetsDisk': (inv) => {
    const w = inv.args.find(
      (a) => /^--(size|filename)=/.test(a.value ?? '') && /\/dev\/|[0-9]+[GT]/.test(a.value ?? ''),
    );
    return w ? [w] : undefined;
  },
  /** `kubectl scale --replicas=0`: the workload stops serving. */
  'kubectl.replicasZero': (inv) => (optionValue(inv.args, undefined, ['--replicas']) === '0' ? [] : undefined),
  /** `install -m 4755`, `install -m =xs`: a setuid or setgid program. */
  'install.setuidMode': (inv) => {
    const mode = optionValue(inv.args, 'm', ['--mode']);
    return mode && (/s/.test(mode) || /^0?[4-7][0-7]{3}$/.test(mode)) ? [] : undefined;
  },
  /** `nmap --script=/tmp/x.nse`: a script file (Lua code), not a built-in category. */
  'nmap.scriptFile': (inv) => {
    const script = optionValue(inv.args, undefined, ['--script']);
    if (script === undefined) return undefined;
    return script === null || script.split(',').some((s) => /[/.]/.test(s) && !/^[\w-]+$/.test(s)) ? [] : undefined;
  },
  /** `scp -S prog`: another program instead of ssh. */
  'ssh.otherProgram': (inv) => {
    const p = optionValue(inv.args, 'S');
    return p !== undefined && p !== 'ssh' && p !== '/usr/bin/ssh' ? [] : undefined;
  },
} satisfies Record<string, Check>;

export const CHECKS: Readonly<Record<string, Check>> = CHECKS_TABLE;
export const CHECK_NAMES = Object.keys(CHECKS_TABLE) as [
  keyof typeof CHECKS_TABLE,
  ...Array<keyof typeof CHECKS_TABLE>,
];
