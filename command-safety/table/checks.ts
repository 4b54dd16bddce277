/**
 * Named checks: the data-flow cases a table row cannot say with a program, a subcommand, options
 * and operand classes (a value inside an option, an earlier command of the same line). A row names
 * one (`check: 'fio.targetsDisk'`); each returns the words that made it hold, or undefined — or,
 * when what it found is worth naming (`DROP TABLE`), the words and a `detail` the reason shows. The list
 * is short on purpose: a new case is a row first, a check only when a row cannot say it.
 */
import type { Invocation } from '../invocation.js';
import { hasOption, operands, optionValue, optionWords } from '../options.js';
import { placeOf } from '../paths.js';
import type { Word } from '../shell.js';
import { GIT_CHECKS } from './git-checks.js';
import { SIGNAL_CHECKS } from './signal-checks.js';
import { DATABASE_CHECKS } from './database-checks.js';

/** The rest of the line a check may read: the invocation before a tool's own options were stripped, earlier facts. */
export interface CheckLine {
  whole: Invocation;
  /** What earlier commands of the same line established (`git remote add evil …`), by kind. */
  facts: ReadonlyMap<string, ReadonlySet<string>>;
  /** Files earlier commands of the same line wrote, by path: their text, or null when it was not literal. */
  written: ReadonlyMap<string, string | null>;
}

type CheckWords = ReadonlyArray<Word | undefined>;
/** The words that made a check hold, and what it found, for a reason's `{detail}`. */
export type CheckResult = CheckWords | { at: CheckWords; detail: string };

export type Check = (inv: Invocation, line: CheckLine) => CheckResult | undefined;

const CHECKS_TABLE = {
  ...GIT_CHECKS,
  ...SIGNAL_CHECKS,
  ...DATABASE_CHECKS,
  /** `fio --filename=/dev/sda`, `--size=100G`: a benchmark that writes a disk or fills one. */
  'fio.targetsDisk': (inv) => {
    const w = inv.args.find(
      (a) => /^--(size|filename)=/.test(a.value ?? '') && /\/dev\/|[0-9]+[GT]/.test(a.value ?? ''),
    );
    return w ? [w] : undefined;
  },
  /** `pip freeze | xargs pip uninstall -y`: the operands arrive on standard input, as many as there are. */
  'operands.fromStdin': (inv) => (inv.operandsFromStdin ? [] : undefined),
  /** `kubectl scale --replicas=0`: the workload stops serving. */
  'kubectl.replicasZero': (inv) => (optionValue(inv.args, undefined, ['--replicas']) === '0' ? [] : undefined),
  /** `kubectl proxy --address=0.0.0.0`: an address that is not loopback listens on every interface. */
  'kubectl.exposedAddress': (inv) => {
    const a = optionValue(inv.args, undefined, ['--address']);
    if (a === undefined) return undefined;
    return a === null || a.split(',').some((x) => !/^(127\.\d+\.\d+\.\d+|localhost|::1)$/.test(x)) ? [] : undefined;
  },
  /** `kubectl cp ./x pod:/tmp/x`: the destination (the last operand) is in a pod. */
  'kubectl.copiesIntoPod': (inv) => {
    const ops = operands(inv.args);
    const from = ops.findIndex((w) => w.value === 'cp');
    const rest = ops.slice(from + 1);
    const dest = rest[rest.length - 1];
    return rest.length >= 2 && /^[^/.~][^/]*:/.test(dest!.value ?? '') ? [dest] : undefined;
  },
  /** `aws s3 cp x s3://b/x`: the destination (the last operand) is a bucket. */
  'aws.s3Destination': (inv) => {
    const dest = operands(inv.args).at(-1);
    return dest && /^s3:\/\//.test(dest.value ?? '') ? [dest] : undefined;
  },
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
  /** `ssh -D 1080 host` (in any bundle before an option that takes a value): a SOCKS proxy through another machine. */
  'ssh.dynamicForward': (inv) => {
    for (const w of inv.args) {
      const v = w.value ?? '';
      if (!/^-[a-zA-Z]+$/.test(v)) continue;
      for (const c of v.slice(1)) {
        if (c === 'D') return [w];
        if ('BbcEeFIiJLlmOopQRSWw'.includes(c)) break;
      }
    }
    return undefined;
  },
  /** `tar -x`, `tar --get`, or an old-style bundle without a dash (`tar xzf a.tgz`). */
  'tar.extracts': (inv) => (tarExtracts(inv) ? [] : undefined),
  /**
   * The folder an archiver extracts into (`tar -C`, `unzip -d`, `7z -o`, rar's trailing `dir/`; the
   * current folder when none is given) lies outside the workspace and outside /tmp.
   */
  'archive.extractsOutside': (inv) => {
    const dest = extractionFolder(inv);
    if (!dest) return undefined;
    const [dir, at] = dest;
    if (dir !== null && /^\/(tmp|var\/tmp)(\/|$)/.test(dir)) return undefined;
    return placeOf(dir, inv.cmd.cwd) === 'workspace' ? undefined : [at];
  },
  /** `fallocate -l 500G`: a file big enough to fill the disk. */
  'fallocate.fillsDisk': (inv) => {
    const len = optionValue(inv.args, 'l', ['--length']);
    return len && bytes(len) >= 8 * 1024 ** 3 ? [] : undefined;
  },
  /** `openssl … -in f -out f`: the output overwrites the input. */
  'openssl.inPlace': (inv) => {
    const input = optionValue(inv.args, undefined, ['-in']);
    return input && input === optionValue(inv.args, undefined, ['-out']) ? [] : undefined;
  },
  /** `openssl -engine ./x.so`: an engine or provider loaded from a file (a shared library). */
  'openssl.engineFile': (inv) => {
    const w = inv.args.find((_, i) => /^-(engine|provider|provider-path)$/.test(inv.args[i - 1]?.value ?? ''));
    return w && (w.value === null || /[/.]/.test(w.value)) ? [w] : undefined;
  },
} satisfies Record<string, Check>;

function tarExtracts(inv: Invocation): boolean {
  const first = inv.args[0]?.value ?? '';
  const bundle = /^[a-zA-Z]+$/.test(first) ? `-${first}` : '';
  const opts = [bundle, ...optionWords(inv.args)].filter(Boolean);
  return opts.some((o) => (/^-[a-zA-Z]+$/.test(o) && o.includes('x')) || /^--(extract|get)$/.test(o));
}

/** Where an archiver extracts to, and the word that said so; undefined when it does not extract. */
function extractionFolder(inv: Invocation): [string | null, Word | undefined] | undefined {
  const ops = operands(inv.args);
  switch (inv.name) {
    case 'tar':
    case 'bsdtar':
    case 'gtar': {
      if (!tarExtracts(inv)) return undefined;
      const w = inv.args.find(
        (a, i) => /^(-C|--directory)$/.test(inv.args[i - 1]?.value ?? '') || /^--directory=/.test(a.value ?? ''),
      );
      return w ? [w.value?.replace(/^--directory=/, '') ?? null, w] : ['.', undefined];
    }
    case 'unzip': {
      if (hasOption(inv.args, { short: 'lZtv' }) && !hasOption(inv.args, { short: 'd' })) return undefined;
      const d = optionValue(inv.args, 'd');
      return d === undefined ? ['.', undefined] : [d, inv.args.find((w) => w.value === d)];
    }
    case 'rar':
    case 'unrar': {
      if (!/^(x|e)$/.test(ops[0]?.value ?? '')) return undefined;
      const w = ops.slice(2).find((o) => o.value?.endsWith('/'));
      return w ? [w.value, w] : undefined;
    }
    default: {
      // 7z, 7za, 7zz
      if (!/^(x|e)$/.test(ops[0]?.value ?? '')) return undefined;
      const w = inv.args.find((a) => /^-o/.test(a.value ?? ''));
      return w ? [w.value?.slice(2) ?? null, w] : ['.', undefined];
    }
  }
}

/** `500G`, `1.5TiB`, `2048M` in bytes (NaN when it is not a size). */
function bytes(size: string): number {
  const m = /^(\d+(?:\.\d+)?)\s*([KMGTPE]?)(i?B)?$/i.exec(size);
  return m ? Number(m[1]) * 1024 ** ' KMGTPE'.indexOf(m[2]!.toUpperCase() || ' ') : NaN;
}

export const CHECKS: Readonly<Record<string, Check>> = CHECKS_TABLE;
export const CHECK_NAMES = Object.keys(CHECKS_TABLE) as [
  keyof typeof CHECKS_TABLE,
  ...Array<keyof typeof CHECKS_TABLE>,
];
