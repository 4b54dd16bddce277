/**
 * Files the command line downloads (`curl -o x`, `wget -O x`, `curl -O URL`) and running them later
 * in the same line: running downloaded code (group indirection), as a pipe into a shell would.
 */
import type { Invocation, Rule, RuleContext } from '../invocation.js';
import { optionValue } from '../options.js';

/** Programs that fetch from the network: a script they write into a shell's standard input is downloaded code. */
export const DOWNLOADERS = new Set([
  'curl',
  'wget',
  'fetch',
  'aria2c',
  'http',
  'https',
  'xh',
  'lwp-request',
  'GET',
  'nc',
  'ncat',
  'netcat',
  'socat',
  'openssl',
  'ftp',
  'tftp',
  'scp',
  'rsync',
  'ssh',
  'gh',
  'git',
  'dig',
]);

/** Files the command line downloaded (`curl -o x`, `wget -O x`): running one later runs downloaded code. */
export function noteDownload(inv: Invocation, ctx: RuleContext): void {
  // `wget -r URL`, `wget -P dir URL`: files land under names the gate cannot know in advance.
  if (
    inv.name === 'wget' &&
    inv.args.some((w) => /^(-[a-zA-Z]*[rmP][a-zA-Z]*|--(recursive|mirror|directory-prefix)(=.*)?)$/.test(w.value ?? ''))
  )
    ctx.facts.set('downloaded-tree', new Set(['*']));
  const letter = inv.name === 'wget' ? 'O' : 'o';
  const bundled = inv.args.findIndex((w) => new RegExp(`^-[a-zA-Z]*${letter}$`).test(w.value ?? ''));
  const out =
    bundled >= 0 ? inv.args[bundled + 1]?.value : optionValue(inv.args, letter, ['--output', '--output-document']);
  const named =
    inv.name === 'wget' && out === undefined
      ? inv.args
          .find((w) => /^https?:\/\//.test(w.value ?? ''))
          ?.value?.split('/')
          .pop()
      : undefined;
  // curl's `-O` / `--remote-name` (also bundled, `-sLO`): saved under the URL's last path component.
  const remote =
    inv.name === 'curl' &&
    out === undefined &&
    inv.args.some((w) => /^(-[a-zA-Z]*O[a-zA-Z]*|--remote-name(-all)?)$/.test(w.value ?? ''))
      ? inv.args
          .find((w) => /^https?:\/\//.test(w.value ?? ''))
          ?.value?.replace(/[?#].*$/, '')
          .split('/')
          .pop()
      : undefined;
  const file = out ?? named ?? remote;
  if (!file || file === '-') return;
  const seen = ctx.facts.get('downloaded') ?? new Set<string>();
  seen.add(file.replace(/^\.\//, ''));
  ctx.facts.set('downloaded', seen);
}

export function ranDownloaded(inv: Invocation, ctx: RuleContext, file: string | null): void {
  const local = file?.replace(/^\.\//, '');
  if (
    local &&
    (ctx.facts.get('downloaded')?.has(local) || (ctx.facts.has('downloaded-tree') && !local.startsWith('/')))
  )
    ctx.add(inv, {
      group: 'indirection',
      rule: 'pipe_to_shell',
      reason: `runs ${file}, which this command line downloaded`,
    });
}

/** `./downloaded-file`: a command that is a file this command line just fetched. */
export const runsDownloaded: Rule = (inv, ctx) => {
  if (inv.path.includes('/')) ranDownloaded(inv, ctx, inv.path);
  // `chmod +x run.sh && ./run.sh`: a file made executable and run in one go.
  if (ctx.facts.get('made-executable')?.has(inv.path.replace(/^\.\//, '')))
    ctx.add(inv, { group: 'indirection', rule: 'exec_new_file', reason: `makes ${inv.path} executable and runs it` });
};
