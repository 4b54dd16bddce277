/**
 * Named checks of the signal rows (table/rows/signals.ts): which signal `kill` sends and to whom is
 * a matter of position (`kill -1 1234` sends signal 1; `kill -- -1` and a lone `kill -1` mean every
 * process), and `pkill`'s user, parent and pattern are option values, so they are read here.
 */
import type { Check } from './checks.js';
import type { Invocation } from '../invocation.js';
import { operands } from '../options.js';
import { initShutdownSignal } from '../rules/devices.js';

/** The signal `kill` sends ('' for the default TERM) and its targets: a signal first (`-9`, `-KILL`, `-s KILL`, `-n 9`), then `--`, then the targets. */
export function killArgs(inv: Invocation): { signal: string; targets: string[] } {
  const a = inv.args.map((w) => w.value ?? '');
  let i = 0;
  let signal = '';
  if (a[0] === '-s' || a[0] === '-n' || a[0] === '--signal') {
    signal = a[1] ?? '';
    i = 2;
  } else if (a[0] && /^-[A-Za-z0-9+-]+$/.test(a[0]) && a[0] !== '-1' && (a.length > 1 || inv.operandsFromStdin)) {
    signal = a[0].slice(1);
    i = 1;
  }
  if (a[i] === '--') i++;
  return { signal, targets: a.slice(i) };
}

/** `-1` as a target is every process; a lone `kill -1` is read the same way (fail closed). */
const everyProcess = (inv: Invocation) => {
  const { targets } = killArgs(inv);
  return targets.includes('-1') || (inv.args.length === 1 && inv.args[0]!.value === '-1');
};

/** A signal other than 0 (which only checks the process exists) to init, pid 1. */
const toInit = (inv: Invocation) => {
  const { signal, targets } = killArgs(inv);
  return !everyProcess(inv) && targets.includes('1') && signal !== '0';
};

const holds = (b: boolean) => (b ? [] : undefined);

/** The value of `-u root`, `--euid=0`: pkill's user options. */
const userValues = (a: string[]) =>
  a.flatMap((v, i) => (/^-u$|^--(user|euid|uid)/.test(v) ? [a[i + 1] ?? v.split('=')[1] ?? ''] : []));

export const SIGNAL_CHECKS = {
  /** `kill -9 -1`, `kill -- -1`, `kill -1`: every process the user may signal. */
  'kill.everyProcess': (inv) => holds(everyProcess(inv)),
  /** `kill 1`, `kill -INT 1`, `kill -s RTMIN+4 1`: a signal init reads as shut down or reboot. */
  'kill.initShutdown': (inv) => holds(toInit(inv) && initShutdownSignal(killArgs(inv).signal)),
  /** `kill -HUP 1`: another signal to init. */
  'kill.init': (inv) => holds(toInit(inv) && !initShutdownSignal(killArgs(inv).signal)),
  /** `xargs kill`: the processes are only known at run time. */
  'kill.stdinTargets': (inv) =>
    holds(inv.operandsFromStdin && killArgs(inv).signal !== '0' && !everyProcess(inv) && !toInit(inv)),
  /** `kill -9 PID`, `kill -s KILL PID`: no chance to clean up (to every process or init, the rows above say more). */
  'kill.forceSignal': (inv) =>
    holds(
      /^(9|KILL|SIGKILL)$/i.test(killArgs(inv).signal) && !everyProcess(inv) && !toInit(inv) && !inv.operandsFromStdin,
    ),
  /** `pkill -s 9 x` (read as a signal, failing closed), `pkill --signal=KILL x`. */
  'pkill.forceSignal': (inv) => {
    const a = inv.args.map((w) => w.value ?? '');
    return holds(a.some((v, i) => (v === '-s' && /^(9|KILL)$/i.test(a[i + 1] ?? '')) || /^--signal=(9|KILL)/.test(v)));
  },
  /** `pkill -u root x`, `pkill --euid=0 x`: root's processes. */
  'pkill.rootUser': (inv) => holds(userValues(inv.args.map((w) => w.value ?? '')).some((u) => /^(root|0)$/.test(u))),
  /** `pkill -P 1`: every child of init. */
  'pkill.initChildren': (inv) => {
    const a = inv.args.map((w) => w.value ?? '');
    return holds(a.some((v, i) => (/^(-P|--parent)$/.test(v) && /^(1|0)$/.test(a[i + 1] ?? '')) || v === '--parent=1'));
  },
  /** `pkill -f .`: a pattern every command line matches. */
  /** `pkill -u "$USER"`, `killall -u me`: a user, group or session chosen, and no name: all of its processes. */
  'pkill.everyProcessOfOwner': (inv) => {
    const a = inv.args.map((w) => w.value);
    let selected = false;
    let named = false;
    for (let i = 0; i < a.length; i++) {
      const v = a[i];
      if (v === null) {
        named = true;
        continue;
      }
      if (/^-[uUgGs]$|^--(euid|uid|group|pgroup|session|user)$/.test(v!)) {
        selected = true;
        i++;
      } else if (/^-[uUgGs].|^--(euid|uid|group|pgroup|session|user)=/.test(v!)) selected = true;
      else if (/^-(t|P|F|-terminal|-parent|-pidfile|-signal|-ns|-nslist)$/.test(v!)) i++;
      else if (!v!.startsWith('-')) named = true;
    }
    return holds(selected && !named);
  },
  'pkill.everyProcessPattern': (inv) => {
    const pattern = operands(inv.args).pop()?.value;
    return holds(typeof pattern === 'string' && /^(\.|\.\*|\^|\$|\^\.\*\$?|\.\+|\[\^\]\*|)$/.test(pattern));
  },
} satisfies Record<string, Check>;
