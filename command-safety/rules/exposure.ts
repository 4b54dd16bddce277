/**
 * The exposures a table row cannot say (group exfiltrate; password managers, tunnels and backups of
 * a home are rows in table/rows/exposure.ts, socat serving a file in network.ts): a file server over the home, a
 * symlink to a credential read under another name, curl configured from standard input, lftp
 * scripts, a link that gives a system program another name, and the cloud metadata service in its other spellings (`http://2852039166/`,
 * `0xa9fea9fe`, IPv6).
 */
import type { Invocation, Rule, RuleContext } from '../invocation.js';
import { operands, optionValue } from '../options.js';
import { isSecretFile, placeOf } from '../paths.js';
import type { Word } from '../shell.js';
import { literalInput } from './literal-text.js';

const X = 'exfiltrate' as const;
const say = (ctx: RuleContext, inv: Invocation, rule: string, reason: string, at?: Array<Word | undefined>) =>
  ctx.add(inv, { group: X, rule, reason, ...(at ? { at: [inv.word, ...at] } : {}) });

/** Hosts of the metadata services as the WHATWG URL parser normalises them (decimal, hex, octal, IPv6 forms). */
const METADATA_HOSTS = new Set([
  '169.254.169.254',
  '169.254.170.2',
  '100.100.100.200',
  '[fd00:ec2::254]',
  '[::ffff:a9fe:a9fe]',
  '[::a9fe:a9fe]',
  'metadata.google.internal',
  'metadata.azure.com',
  'metadata',
]);

/** `http://2852039166/`, `0xa9fea9fe`, `[::ffff:169.254.169.254]`: the metadata service in another spelling. */
export function metadataHost(v: string | null): boolean {
  if (!v || v.startsWith('-') || v.length > 2000) return false;
  const m = /^(?:[a-z][a-z0-9+.-]*:\/\/)?([^/?#\s]+)/i.exec(v);
  if (!m || !/^[\w.:[\]@%-]+$/.test(m[1]!)) return false;
  try {
    const host = new URL(`http://${m[1]}`).hostname.replace(/\.$/, '').toLowerCase();
    return METADATA_HOSTS.has(host);
  } catch {
    return false;
  }
}

/** `caddy file-server --root ~`: the home or the system over HTTP. */
const caddy: Rule = (inv, ctx) => {
  if (operands(inv.args)[0]?.value !== 'file-server') return;
  const root = optionValue(inv.args, 'r', ['--root']) ?? '.';
  if (['home', 'root', 'system'].includes(placeOf(root, inv.cmd.cwd)) || isSecretFile(root, inv.cmd.cwd))
    say(ctx, inv, 'serve_files', 'serves a home folder or the system over HTTP');
};

/** `ln -s ~/.ssh/id_rsa notes.txt`: later reads of notes.txt read the key. */
export function noteSecretLink(inv: Invocation, ctx: RuleContext): void {
  const ops = operands(inv.args);
  if (ops.length < 2) return;
  const target = ops[0]!;
  if (!isSecretFile(target.value, inv.cmd.cwd)) return;
  const link = ops[ops.length - 1]!.value;
  if (link === null) return;
  const name =
    link.endsWith('/') || link === '.' ? `${link.replace(/\/$/, '')}/${target.value!.split('/').pop()}` : link;
  const links = ctx.facts.get('secret-links') ?? new Set<string>();
  links.add(name.replace(/^\.\//, ''));
  ctx.facts.set('secret-links', links);
}

/** Reading a file this command line linked to a credential. */
export const readsSecretLink: Rule = (inv, ctx) => {
  const links = ctx.facts.get('secret-links');
  if (!links?.size || inv.name === 'ln' || inv.name === 'rm' || inv.name === 'unlink') return;
  const hit = [...operands(inv.args), ...(inv.cmd.stdin?.kind === 'file' ? [inv.cmd.stdin.path] : [])].find(
    (w) => w.value !== null && links.has(w.value.replace(/^\.\//, '')),
  );
  if (hit)
    say(ctx, inv, 'credential_read', `reads ${hit.value}, which this command line linked to a credential`, [hit]);
};

/** `… | curl -K -`: curl's options come from standard input (`upload-file = ".env"`). */
export function curlConfigFromStdin(inv: Invocation, ctx: RuleContext): void {
  const k = optionValue(inv.args, 'K', ['--config']);
  if (k !== '-' && k !== '/dev/stdin') return;
  const text = literalInput(inv.cmd);
  if (text === null) return say(ctx, inv, 'upload_dynamic', 'curl reads its options from input only known at run time');
  const words: Word[] = [inv.word];
  for (const line of text.split('\n')) {
    const m = /^\s*(-{0,2}[\w-]+)\s*[=:\s]\s*"?(.*?)"?\s*$/.exec(line) ?? /^\s*(-{0,2}[\w-]+)\s*$/.exec(line);
    if (!m || line.trim().startsWith('#')) continue;
    const name = m[1]!.startsWith('-') ? m[1]! : `--${m[1]}`;
    words.push({ ...inv.word, value: name, raw: name });
    if (m[2] !== undefined) words.push({ ...inv.word, value: m[2], raw: m[2] });
  }
  if (words.length > 1) ctx.nested(inv, words);
}

/** lftp scripts (`-e`, `-c`): `mirror -R` uploads a folder, with `--delete` it deletes there too. */
const lftp: Rule = (inv, ctx) => {
  const script = optionValue(inv.args, 'e') ?? optionValue(inv.args, 'c');
  if (script === undefined) return;
  if (script === null) return say(ctx, inv, 'upload_dynamic', 'lftp runs commands only known at run time');
  for (const cmd of script.split(/;|\n|&&/).map((c) => c.trim())) {
    if (/^mirror\b.*(\s-R\b|\s--reverse\b)/.test(cmd))
      ctx.add(inv, { group: 'publish', rule: 'file_upload', reason: 'lftp mirror -R uploads a folder to the server' });
    if (/^mirror\b.*\s(--delete|-e)\b/.test(cmd) || /^(rm|mrm|rmdir)\b/.test(cmd))
      ctx.add(inv, { group: 'destroy_files', rule: 'sync_delete', reason: 'lftp deletes files on the server' });
    if (/^!/.test(cmd)) ctx.script(inv, { ...inv.word, value: cmd.slice(1) }, 'lftp runs a shell command');
  }
};

/**
 * `ln -s /bin/rm ./cleanup && ./cleanup -rf ~`: a link to a system program runs that program under
 * another name, so later commands of that name are read as it (as an alias is).
 */
function noteProgramLink(inv: Invocation, ctx: RuleContext): void {
  const ops = operands(inv.args);
  const [target, link] = [ops[0], ops[ops.length - 1]];
  if (ops.length !== 2 || !target?.value || !link?.value || !/^\/(usr\/)?(local\/)?s?bin\/[\w.+-]+$/.test(target.value))
    return;
  ctx.aliases.set(link.value.slice(link.value.lastIndexOf('/') + 1), target);
}

export const EXPOSURE_RULES: Record<string, Rule> = {
  caddy,
  lftp,
  ln: (inv, ctx) => {
    noteSecretLink(inv, ctx);
    noteProgramLink(inv, ctx);
  },
};
