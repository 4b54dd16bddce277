/**
 * More ways to read secrets out or open the machine to the network (group exfiltrate): password
 * managers and config dumps that print secrets (`bw get`, `kwallet-query -r`, `rclone config
 * show`), tunnels and exposures that let another machine in (ngrok, cloudflared, localtunnel,
 * tailscale funnel, bore, chisel, DNS tunnels, `ssh -D`, socat serving a file, a file server over
 * the home), backups of a whole home to a repository, a symlink to a credential read under another
 * name, curl configured from standard input, and the cloud metadata service in its other
 * spellings (`http://2852039166/`, `0xa9fea9fe`, IPv6).
 */
import type { Invocation, Rule, RuleContext } from '../invocation.js';
import { hasOption, operands, optionValue } from '../options.js';
import { isSecretFile, placeOf } from '../paths.js';
import type { Word } from '../shell.js';
import { literalInput } from './code.js';

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

/** CLIs whose subcommand prints stored secrets: tool → the subcommand paths that do. */
const SECRET_PRINTERS: Record<string, RegExp> = {
  bw: /^(get|export|list items|send receive|serve)\b/,
  lpass: /^(show|export)\b/,
  'keepassxc-cli': /^(show|export|clip|attachment-export)\b/,
  'kwallet-query': /(^|\s)(-r|--read-password)\b/,
  kwalletcli: /^/,
  rclone: /^config (show|dump|redacted --no-redact|password)\b/,
  chamber: /^(read|export|env|exec)\b/,
  'aws-vault': /^(exec|export|login)\b/,
  infisical: /^(secrets|export|run)\b/,
  dotenvx: /^(get|decrypt|run)\b/,
  'git-credential-manager': /^get\b/,
  'git-credential-osxkeychain': /^get\b/,
  'git-credential-libsecret': /^get\b/,
  'git-credential-store': /^get\b/,
  berglas: /^(access|exec)\b/,
  akeyless: /^get-secret-value\b/,
  conjur: /^variable get\b/,
};

const secretPrinter: Rule = (inv, ctx) => {
  const path = inv.args.map((w) => w.value ?? '').join(' ');
  const m = SECRET_PRINTERS[inv.name]!.exec(path);
  if (m)
    say(
      ctx,
      inv,
      'credential_read',
      `${inv.name} ${m[0].trim()} prints stored secrets`.replace(/\s+prints/, ' prints'),
    );
};

/**
 * Tunnels and exposures: a public address for a local port or a way into this machine from
 * another (tool → the subcommands that only configure or inspect it).
 */
const TUNNELS: Record<string, RegExp | null> = {
  ngrok: /^(config|version|help|update|completion|diagnose|credits|api)$/,
  cloudflared: /^(version|update|help|access|login)$/,
  lt: null,
  localtunnel: null,
  bore: /^(server|help)$/,
  chisel: /^(help)$/,
  frpc: /^(verify|help|version)$/,
  zrok: /^(version|status|overview|enable|disable|invite|config|ls|help)$/,
  loophole: /^(account|version|help)$/,
  telebit: /^(status|version|help)$/,
  iodine: null,
  iodined: null,
  dns2tcp: null,
  dnscat: null,
  dnscat2: null,
  ptunnel: null,
  'ptunnel-ng': null,
  gost: null,
  revsocks: null,
  ligolo: null,
  'ligolo-ng': null,
  rcat: /^(help)$/,
  pwncat: null,
  'pwncat-cs': null,
};

const tunnel: Rule = (inv, ctx) => {
  const first = operands(inv.args)[0]?.value ?? '';
  const exempt = TUNNELS[inv.name];
  if (hasOption(inv.args, { long: ['--help', '--version'] }) || (exempt && first && exempt.test(first))) return;
  say(ctx, inv, 'tunnel', `${inv.name} opens a tunnel: another machine reaches this one (or data leaves through it)`);
};

/** `tailscale funnel`, `tailscale serve`: a local port published to the tailnet or the internet. */
const tailscale: Rule = (inv, ctx) => {
  const verb = operands(inv.args)[0]?.value ?? '';
  const status =
    /^(status|reset|off)$/.test(operands(inv.args)[1]?.value ?? '') ||
    inv.args.some((w) => /^(off|--bg=false)$/.test(w.value ?? ''));
  if ((verb === 'funnel' || verb === 'serve') && !status)
    say(
      ctx,
      inv,
      'tunnel',
      `tailscale ${verb} exposes a local port ${verb === 'funnel' ? 'to the internet' : 'to the tailnet'}`,
    );
};

/** `caddy file-server --root ~`: the home or the system over HTTP. */
const caddy: Rule = (inv, ctx) => {
  if (operands(inv.args)[0]?.value !== 'file-server') return;
  const root = optionValue(inv.args, 'r', ['--root']) ?? '.';
  if (['home', 'root', 'system'].includes(placeOf(root, inv.cmd.cwd)) || isSecretFile(root, inv.cmd.cwd))
    say(ctx, inv, 'serve_files', 'serves a home folder or the system over HTTP');
};

/** socat listening and answering with a file (`TCP-LISTEN:8000,fork FILE:/etc/shadow`). */
const socatServes: Rule = (inv, ctx) => {
  const addrs = operands(inv.args).map((w) => w.value ?? '');
  if (!addrs.some((a) => /^(tcp|tcp4|tcp6|udp|ssl|openssl|sctp)[46]?-listen:|^(tcp|udp)[46]?-l:/i.test(a))) return;
  const file = addrs.find(
    (a) => /^(file|open|gopen|create|readline)?:?(\/|~)/i.test(a) && /^(file|open|gopen|create):/i.test(a),
  );
  if (file) say(ctx, inv, 'serve_files', `socat serves ${file.replace(/^\w+:/, '')} to whoever connects`);
};

/** `ssh -D 1080 host`: a SOCKS proxy through another machine. */
export function sshDynamicForward(inv: Invocation, ctx: RuleContext): void {
  for (const w of inv.args) {
    const v = w.value ?? '';
    if (!/^-[a-zA-Z]+$/.test(v)) continue;
    // Letters up to the first that takes a value; that one's value is the rest of the word or the next word.
    for (const c of v.slice(1)) {
      if (c === 'D') return say(ctx, inv, 'tunnel', `${inv.name} -D opens a SOCKS proxy through another machine`, [w]);
      if ('BbcEeFIiJLlmOopQRSWw'.includes(c)) break;
    }
  }
}

/** Backups of a whole home or the root to a repository (borg, restic, duplicity, kopia, rclone copy). */
const BACKUP: Record<string, RegExp> = {
  borg: /^create$/,
  restic: /^backup$/,
  kopia: /^snapshot$/,
  duplicity: /^(full|incremental|incr)?$/,
  duply: /^backup$/,
  tarsnap: /^-c$/,
  rclone: /^(copy|sync|move|copyto)$/,
};

const backup: Rule = (inv, ctx) => {
  const ops = operands(inv.args);
  const verb = inv.name === 'tarsnap' ? (inv.args.some((w) => w.value === '-c') ? '-c' : '') : (ops[0]?.value ?? '');
  if (inv.name !== 'duplicity' && !BACKUP[inv.name]!.test(verb)) return;
  const home = ops.find(
    (w) => ['home', 'root'].includes(placeOf(w.value, inv.cmd.cwd, w.glob)) || isSecretFile(w.value, inv.cmd.cwd),
  );
  if (home)
    say(ctx, inv, 'backup_home', `${inv.name} copies a whole home folder or the root into a repository elsewhere`, [
      home,
    ]);
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

/** Several rules for one name run one after the other. */
function merged(...tables: Array<Record<string, Rule>>): Record<string, Rule> {
  const out: Record<string, Rule> = {};
  for (const t of tables)
    for (const [name, rule] of Object.entries(t)) {
      const before = out[name];
      out[name] = before
        ? (inv, ctx) => {
            before(inv, ctx);
            rule(inv, ctx);
          }
        : rule;
    }
  return out;
}

export const EXPOSURE_RULES: Record<string, Rule> = merged(
  Object.fromEntries(Object.keys(SECRET_PRINTERS).map((n) => [n, secretPrinter])),
  Object.fromEntries(Object.keys(TUNNELS).map((n) => [n, tunnel])),
  Object.fromEntries(Object.keys(BACKUP).map((n) => [n, backup])),
  {
    tailscale,
    caddy,
    socat: socatServes,
    lftp,
    ssh: (inv, ctx) => sshDynamicForward(inv, ctx),
    autossh: (inv, ctx) => sshDynamicForward(inv, ctx),
    ln: (inv, ctx) => noteSecretLink(inv, ctx),
  },
);
