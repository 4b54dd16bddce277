/**
 * Files the command line downloads (`curl -o x`, `wget -O x`, `curl -O URL`) and running them later
 * in the same line: running downloaded code (group indirection), as a pipe into a shell would.
 */
import type { Invocation, Rule, RuleContext } from '../invocation.js';
import type { SimpleCommand } from '../shell.js';
import { operands, optionValue } from '../options.js';
import { absolute } from '../paths.js';
import { nameOf } from './literal-text.js';
import { writtenText } from './written.js';

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

/**
 * The last path component of the command's first URL (`https://x.io/a.sh` → `a.sh`), without its
 * query when the tool saves it so (curl, aria2c; wget keeps it in the name).
 */
function urlName(inv: Invocation, o: { schemes?: RegExp; dropQuery?: boolean } = {}): string | undefined {
  const url = inv.args.find((w) => (o.schemes ?? /^https?:\/\//).test(w.value ?? ''))?.value;
  return (o.dropQuery ? url?.replace(/[?#].*$/, '') : url)?.split('/').pop();
}

/** Where a downloader saves (undefined: stdout or a name it cannot know, then noted as a tree). */
function downloadedFile(inv: Invocation, ctx: RuleContext): string | undefined {
  // `aria2c -d DIR -o NAME URL`: saved as DIR/NAME (or the URL's last part).
  if (inv.name === 'aria2c') {
    const name =
      optionValue(inv.args, 'o', ['--out']) ?? urlName(inv, { schemes: /^(https?|ftp):\/\//, dropQuery: true });
    if (!name) {
      ctx.facts.set('downloaded-tree', new Set(['*']));
      return undefined;
    }
    const dir = optionValue(inv.args, 'd', ['--dir']);
    return dir ? `${dir.replace(/\/+$/, '')}/${name}` : name;
  }
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
  if (out !== undefined) return out ?? undefined;
  if (inv.name === 'wget') return urlName(inv);
  // curl's `-O` / `--remote-name` (also bundled, `-sLO`): saved under the URL's last path component.
  if (inv.args.some((w) => /^(-[a-zA-Z]*O[a-zA-Z]*|--remote-name(-all)?)$/.test(w.value ?? '')))
    return urlName(inv, { dropQuery: true });
  return undefined;
}

/** Files the command line downloaded (`curl -o x`, `wget -O x`): running one later runs downloaded code. */
export function noteDownload(inv: Invocation, ctx: RuleContext): void {
  const file = downloadedFile(inv, ctx);
  if (!file || file === '-') return;
  const seen = ctx.facts.get('downloaded') ?? new Set<string>();
  seen.add(file.replace(/^\.\//, ''));
  ctx.facts.set('downloaded', seen);
}

/** The commands whose output is this one's standard input: a pipe's left side, a `< <(…)`. */
export function stdinProducers(cmd: SimpleCommand): readonly SimpleCommand[] {
  const s = cmd.stdin;
  if (!s || s.kind === 'text' || s.kind === 'file') return [];
  return s.kind === 'pipe' ? s.from : s.commands;
}

/**
 * `git clone URL [dir]`, `gh repo clone owner/name [dir]`: a tree fetched from the network, under
 * the folder the clone creates; running a file from it runs code nobody here has read.
 */
export function noteClone(inv: Invocation, ctx: RuleContext): void {
  const ops = operands(inv.args);
  const verb = inv.name === 'git' ? ops[0]?.value : inv.name === 'gh' ? `${ops[0]?.value} ${ops[1]?.value}` : undefined;
  if (verb !== 'clone' && verb !== 'repo clone') return;
  const [source, dest] = ops.slice(verb === 'clone' ? 1 : 2);
  if (!source) return;
  const name =
    dest?.value ??
    source.value
      ?.replace(/[/\s]+$/, '')
      .split(/[/:]/)
      .pop()
      ?.replace(/\.git$/, '');
  const dir = name ? absolute(name, inv.cmd.cwd) : undefined;
  const dirs = ctx.facts.get('downloaded-dirs') ?? new Set<string>();
  // A folder the gate cannot name (`git clone "$URL"`, an unknown cwd): any relative file may be from it.
  if (dir === undefined) ctx.facts.set('downloaded-tree', new Set(['*']));
  else dirs.add(dir);
  ctx.facts.set('downloaded-dirs', dirs);
}

/**
 * `curl … | tar xz`, `wget x.zip && unzip x.zip`: an archive from the network unpacked under
 * names the gate cannot know in advance.
 */
export function noteUnpacked(inv: Invocation, ctx: RuleContext): void {
  if (!/^(tar|bsdtar|gtar|unzip|7z|7za|unrar|cpio)$/.test(inv.name)) return;
  if (inv.name === 'tar' || inv.name === 'bsdtar' || inv.name === 'gtar') {
    const first = inv.args[0]?.value ?? '';
    if (
      !/^-?[a-zA-Z]*x/.test(first) &&
      !inv.args.some((w) => /^(--extract|--get|-[a-zA-Z]*x[a-zA-Z]*)$/.test(w.value ?? ''))
    )
      return;
  }
  const fromNetwork = stdinProducers(inv.cmd).some((c) => DOWNLOADERS.has(nameOf(c)));
  const downloaded = ctx.facts.get('downloaded');
  const fromFile = operands(inv.args).some((w) => w.value === null || downloaded?.has(w.value.replace(/^\.\//, '')));
  if (fromNetwork || fromFile) ctx.facts.set('downloaded-tree', new Set(['*']));
}

export function ranDownloaded(inv: Invocation, ctx: RuleContext, file: string | null): void {
  const local = file?.replace(/^\.\//, '');
  if (!local) return;
  const abs = absolute(local, inv.cmd.cwd);
  const dirs = ctx.facts.get('downloaded-dirs');
  const inClone = !!dirs?.size && (abs === undefined || [...dirs].some((d) => abs.startsWith(`${d}/`)));
  if (
    inClone ||
    ctx.facts.get('downloaded')?.has(local) ||
    (ctx.facts.has('downloaded-tree') && !local.startsWith('/'))
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
  // `… > run.sh; chmod +x run.sh && ./run.sh`: a file this line wrote, made executable and run (a
  // file of the workspace made executable and run is running the workspace's own script).
  if (
    ctx.facts.get('made-executable')?.has(inv.path.replace(/^\.\//, '')) &&
    writtenText(ctx, inv.path, inv.cmd.cwd) !== undefined
  )
    ctx.add(inv, { group: 'indirection', rule: 'exec_new_file', reason: `makes ${inv.path} executable and runs it` });
};
