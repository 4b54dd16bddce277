/**
 * Reading secrets and sending data off the machine (group exfiltrate): reading credential files,
 * a project's `.env` or any process's environment; keychain, token and cloud-metadata dumps;
 * environment dumps and secrets piped or passed to the network; uploads of files from outside the
 * workspace or of command output; a shell piped into a socket; serving the home over HTTP; names
 * built at run time sent to DNS. `nc -e`, `socat exec:`, reverse tunnels and searches of a whole
 * home are rows (table/rows/network.ts).
 */
import { onlyLoopback } from '../loopback.js';
import type { Rule } from '../invocation.js';
import { stdoutTargets } from '../invocation.js';
import { operands, optionValue } from '../options.js';
import { isProcEnviron, isSecretFile, mentionsProcEnviron, placeOf } from '../paths.js';
import type { SimpleCommand, Word } from '../shell.js';
import { SHELLS } from './code.js';
import { curlConfigFromStdin, metadataHost } from './exposure.js';

const X = 'exfiltrate' as const;
const basename = (p: string) => p.slice(p.lastIndexOf('/') + 1);

/** Commands that only look at names or metadata, or use a secret without printing it. */
const NOT_A_READ = new Set([
  'ls',
  'stat',
  'file',
  'du',
  'test',
  '[',
  '[[',
  'realpath',
  'readlink',
  'dirname',
  'basename',
  'tree',
  'exa',
  'eza',
  'lsd',
  'getfacl',
  'lsattr',
  'mkdir',
  'touch',
  'chmod',
  'chown',
  'chgrp',
  'find',
  'echo',
  'printf',
  'which',
  'type',
  'cd',
  'pushd',
  'sha256sum',
  'sha1sum',
  'md5sum',
  'shasum',
  'b2sum',
  'cksum',
  'wc',
  'ssh-add',
  // ssh-keygen makes, fingerprints or converts keys; it never prints a private key.
  'ssh-keygen',
  'mosh',
  'autossh',
  'rm',
  'unlink',
  'shred',
  'ln',
  'df',
  'namei',
  'cmp',
  'source',
  '.',
  'set',
  'git',
]);

/** Options whose value is a file the command uses rather than reads out (`ssh -i key`, `--env-file .env`). */
const USES_FILE = new Set([
  '-i',
  '--identity',
  '--identity-file',
  '--key',
  '--key-file',
  '--keyfile',
  '--cert',
  '--cacert',
  '--private-key',
  '--sshkey',
  '--env-file',
  '--secrets-file',
]);

/** Copies whose last operand is where they write, not what they read. */
const COPIES = new Set(['cp', 'mv', 'install', 'rsync', 'scp', 'sftp']);

/** The path inside an upload argument: `@file`, `name=@file`, `<file` (curl, httpie). */
function uploadedPath(v: string): string | undefined {
  const m = /^(?:[\w.-]*=)?[@<]([^;]+)(?:;.*)?$/.exec(v) ?? /^[\w.-]+@([~/.][^\s]*)$/.exec(v);
  return m?.[1];
}

/** A credential, a `.env` or a process environment named among the arguments. */
const secretOperands: Rule = (inv, ctx) => {
  if (NOT_A_READ.has(inv.name)) return;
  const args = COPIES.has(inv.name) ? inv.args.slice(0, -1) : inv.args;
  for (let i = 0; i < args.length; i++) {
    const w = args[i]!;
    if (w.value !== null && (USES_FILE.has(w.value) || /^--env-file=/.test(w.value))) {
      i++;
      continue;
    }
    if (w.value === null) {
      if (mentionsProcEnviron(w.raw))
        return ctx.add(inv, {
          group: X,
          rule: 'proc_environ',
          reason: 'reads the environment of a process (where secrets live)',
          at: [inv.word, w],
        });
      continue;
    }
    let v = w.value;
    if (/^(if|of)=/.test(v)) v = v.slice(3);
    const eq = /^--[\w-]+=(.*)$/.exec(v);
    if (eq) v = eq[1]!;
    // socat's addresses name files as `FILE:path[,options]` (`OPEN:`, `GOPEN:`, `CREATE:`).
    const address = inv.name === 'socat' ? /^(?:file|open|gopen|create|creat):([^,]+)/i.exec(v) : null;
    if (address) v = address[1]!;
    const up = uploadedPath(v);
    const path = up ?? v;
    if (isProcEnviron(path) || mentionsProcEnviron(path))
      return ctx.add(inv, {
        group: X,
        rule: 'proc_environ',
        reason: 'reads the environment of a process (where secrets live)',
        at: [inv.word, w],
      });
    // `ssh-keygen -lf ~/.ssh/id_ed25519.pub`, `cat ~/.ssh/id_rsa.pub`: a public key is made to be shown.
    if (isSecretFile(path, inv.cmd.cwd) && !/\.pub$/.test(path))
      return ctx.add(inv, {
        group: X,
        rule: up ? 'credential_upload' : 'credential_read',
        reason: up ? 'uploads secrets' : 'reads secrets',
        at: [inv.word, w],
      });
  }
};

/** Programs that send data over the network. */
export const SENDERS = new Set([
  'curl',
  'wget',
  'http',
  'https',
  'xh',
  'httpie',
  'nc',
  'ncat',
  'netcat',
  'socat',
  'telnet',
  'openssl',
  'ssh',
  'scp',
  'sftp',
  'rsync',
  'ftp',
  'lftp',
  'tftp',
  'smbclient',
  'mail',
  'mailx',
  'sendmail',
  'mutt',
  'swaks',
  'aria2c',
  'lwp-request',
  'POST',
  'PUT',
  'gsutil',
  'rclone',
  's3cmd',
  'nslookup',
  'dig',
  'host',
  'drill',
  'kdig',
  'ping',
  'traceroute',
  'wscat',
  'websocat',
  'grpcurl',
  'mosquitto_pub',
  'ztcp',
  'getent',
]);

/** Commands whose output is the environment or the shell's variables. */
const ENV_DUMPS = new Set(['env', 'printenv', 'set', 'export', 'declare', 'typeset', 'compgen']);

function producers(c: SimpleCommand): SimpleCommand[] {
  const s = c.stdin;
  if (!s) return [];
  if (s.kind === 'pipe') return s.from.flatMap((p) => [p, ...producers(p)]);
  if (s.kind === 'process') return s.commands;
  return [];
}

/** Secrets by name in an argument (`$GITHUB_TOKEN`, `${AWS_SECRET_ACCESS_KEY}`). */
const SECRET_VAR =
  /\$\{?(?:[A-Za-z0-9_]*(?:TOKEN|SECRET|PASSWORD|PASSWD|API_?KEY|PRIVATE_?KEY|ACCESS_?KEY|CREDENTIALS?|_PAT|AUTH)[A-Za-z0-9_]*|AWS_[A-Z_]+|GH_[A-Z_]+|GITHUB_[A-Z_]+|OPENAI_[A-Z_]+|ANTHROPIC_[A-Z_]+|DATABASE_URL|PGPASSWORD|NPM_[A-Z_]+)\}?/;

/** Instance-metadata services: their answers are the machine's cloud credentials. */
const METADATA =
  /\b(169\.254\.169\.254|169\.254\.170\.2|fd00:ec2::254|metadata\.google\.internal|100\.100\.100\.200|metadata\.azure\.com)\b/;

/** Literal text fed to a command (`echo …`), for an upload the gate can read. */
const literal = (c: SimpleCommand) =>
  ['echo', 'printf'].includes(basename(c.words[0]?.value ?? '')) && c.words.every((w) => w.value !== null);

const sender: Rule = (inv, ctx) => {
  const from = producers(inv.cmd);
  const say = (rule: string, reason: string, w?: Word) =>
    ctx.add(inv, {
      group: X,
      rule,
      reason,
      ...(rule === 'reverse_shell' ? { level: 'hardline' as const } : {}),
      ...(w ? { at: [inv.word, w] } : {}),
    });
  const dump = from.find(
    (p) =>
      ENV_DUMPS.has(basename(p.words[0]?.value ?? '')) ||
      // `jq -n '$ENV'`, `jq -n env`: jq prints the whole environment.
      (/^(jq|gojq|jaq)$/.test(basename(p.words[0]?.value ?? '')) &&
        p.words.slice(1).some((w) => /^\s*(\$ENV|env)\s*$/.test(w.value ?? ''))) ||
      p.words.some((w) => isProcEnviron(w.value) || mentionsProcEnviron(w.raw)),
  );
  if (dump) return say('env_to_network', `sends the environment (${dump.words[0]?.raw}) over the network`);
  if (from.some((p) => SHELLS.has(basename(p.words[0]?.value ?? ''))))
    return say('reverse_shell', 'pipes a shell into a network connection (a reverse shell)');
  const secretSource = from.find(
    (p) =>
      p.words.some((w) => isSecretFile(w.value, p.cwd) || SECRET_VAR.test(w.raw)) ||
      p.redirects.some((r) => r.op === '<' && isSecretFile(r.target?.value ?? null, p.cwd)) ||
      (p.stdin?.kind === 'file' && isSecretFile(p.stdin.path.value, p.cwd)),
  );
  if (secretSource) return say('credential_upload', 'sends secrets over the network');
  const fileIn = inv.cmd.stdin?.kind === 'file' ? inv.cmd.stdin.path : undefined;
  if (fileIn && isSecretFile(fileIn.value, inv.cmd.cwd))
    return say('credential_upload', 'sends secrets over the network', fileIn);
  const fed = from
    .map((p) =>
      p.words
        .slice(1)
        .map((w) => w.value ?? w.raw)
        .join(' '),
    )
    .join('\n');
  if (/\b(flush_all|flushall|flushdb)\b/i.test(fed))
    ctx.add(inv, {
      group: 'destroy_data',
      rule: 'redis_wipe',
      reason: 'sends a cache wipe (flush_all / FLUSHALL) to a server',
    });
  const text = inv.cmd.stdin?.kind === 'text' ? (inv.cmd.stdin.text ?? '') : '';
  if (/^\s*m?put\s+\S/m.test(text)) return say('file_upload', `${inv.name} uploads files`);
  const secretArg = inv.args.find((w) => SECRET_VAR.test(w.raw));
  if (secretArg) return say('secret_to_network', 'puts a secret variable into a network request', secretArg);
  if (inv.args.some((w) => METADATA.test(w.value ?? w.raw) || metadataHost(w.value)))
    return say('credential_read', 'asks the cloud metadata service (it answers with credentials)');
  // A name built at run time sent to DNS or ping: data smuggled out in the lookup itself.
  if (
    ['nslookup', 'dig', 'host', 'drill', 'kdig', 'ping', 'traceroute'].includes(inv.name) ||
    (inv.name === 'getent' && /^a?hosts(v[46])?$/.test(inv.args[0]?.value ?? ''))
  ) {
    const built = operands(inv.args).find((w) => w.value === null);
    if (built) return say('dns_exfiltration', 'looks up a name built at run time (DNS can carry data out)', built);
  }
  if (['curl', 'wget', 'http', 'https', 'xh'].includes(inv.name)) {
    const url = operands(inv.args).find((w) => w.value === null && /\$\(|`/.test(w.raw));
    if (url) return say('data_in_url', 'sends command output inside a URL', url);
  }
  if (['smbclient', 'lftp', 'ftp', 'sftp'].includes(inv.name) && inv.args.some((w) => /\bm?put\s/.test(w.value ?? '')))
    say('file_upload', `${inv.name} uploads files`);
};

/** curl and wget uploads: of a file from outside the workspace, a file only known at run time, or command output. */
const curl: Rule = (inv, ctx) => {
  sender(inv, ctx);
  if (inv.name === 'curl') curlConfigFromStdin(inv, ctx);
  const a = inv.args;
  const piped = producers(inv.cmd);
  for (let i = 0; i < a.length; i++) {
    const v = a[i]!.value;
    if (v === null) continue;
    const flag =
      /^-[a-zA-Z]*[TFd]$|^--(upload-file|form|data|data-binary|data-raw|data-urlencode|json|post-file|body-file)$/.test(
        v,
      );
    const value = flag
      ? a[i + 1]
      : /^--(upload-file|post-file|body-file|data-binary|data)=/.test(v)
        ? { ...a[i]!, value: v.slice(v.indexOf('=') + 1) }
        : undefined;
    if (!value) continue;
    if (value.value === null && (/@|\$\(|`/.test(value.raw) || /^-[a-zA-Z]*T$|^--upload-file$/.test(v)))
      return ctx.add(inv, {
        group: X,
        rule: 'upload_dynamic',
        reason: 'uploads a file or output only known at run time',
        at: [inv.word, value],
      });
    const isFile = /^-[a-zA-Z]*T$|^--(upload-file|post-file|body-file)/.test(v);
    const path = isFile ? value.value : uploadedPath(value.value ?? '');
    if (path === '-' && piped.length && !piped.every(literal))
      return ctx.add(inv, {
        group: X,
        rule: 'upload_output',
        reason: 'uploads the output of another command',
        at: [inv.word, value],
      });
    // A scratch file under /tmp may be posted to a server on this machine; sent anywhere else it
    // is data leaving, whatever put it there.
    if (
      path &&
      path !== '-' &&
      placeOf(path, inv.cmd.cwd) !== 'workspace' &&
      !(/^\/(tmp|var\/tmp)\//.test(path) && onlyLoopback(operands(inv.args).filter((w) => w !== value)))
    )
      return ctx.add(inv, {
        group: X,
        rule: 'upload_outside',
        reason: 'uploads a file from outside the workspace',
        at: [inv.word, value],
      });
  }
};

/** Serving files over HTTP: the home or the root made readable to anyone who connects. */
const serveFiles: Rule = (inv, ctx) => {
  const a = inv.args.map((w) => w.value ?? '');
  let dir: string | undefined;
  if (/^python[\d.]*$/.test(inv.name) && a[0] === '-m' && /^(http\.server|SimpleHTTPServer)$/.test(a[1] ?? ''))
    dir = optionValue(inv.args, 'd', ['--directory']) ?? inv.cmd.cwd ?? '.';
  else if (/^php[\d.]*$/.test(inv.name) && a.includes('-S')) dir = optionValue(inv.args, 't') ?? inv.cmd.cwd ?? '.';
  else if (inv.name === 'busybox' || inv.name === 'httpd') dir = optionValue(inv.args, 'h') ?? undefined;
  else if (['http-server', 'serve'].includes(inv.name)) dir = operands(inv.args)[0]?.value ?? '.';
  if (dir !== undefined && ['home', 'root', 'system'].includes(placeOf(dir, inv.cmd.cwd)))
    ctx.add(inv, { group: X, rule: 'serve_files', reason: 'serves a home folder or the system over HTTP' });
};

/** ssh's options that run a local command (reverse tunnels are a row: table/rows/network.ts). */
const ssh: Rule = (inv, ctx) => {
  const a = inv.args.map((w) => w.value ?? '');
  for (let i = 0; i < a.length; i++) {
    const opt = a[i] === '-o' ? a[i + 1] : a[i]!.startsWith('-o') ? a[i]!.slice(2) : undefined;
    const m = opt && /^(ProxyCommand|LocalCommand|KnownHostsCommand|RemoteCommand)[= ](.*)$/i.exec(opt);
    if (m) ctx.script(inv, { ...inv.args[i]!, value: m[2]! }, `ssh ${m[1]}`);
  }
  sender(inv, ctx);
};

export const EXFILTRATE_RULES: Record<string, Rule> = {
  curl,
  wget: curl,
  http: curl,
  https: curl,
  xh: curl,
  ssh,
  scp: ssh,
  sftp: ssh,
};

/** Variable names that hold a secret's value (not `GITHUB_SHA` or `AWS_REGION`: those only name things). */
const SECRET_VALUE_NAME =
  /^(?:[A-Za-z0-9_]*(?:TOKEN|SECRET|PASSWORD|PASSWD|API_?KEY|PRIVATE_?KEY|ACCESS_?KEY|CREDENTIALS?|_PAT)[A-Za-z0-9_]*|DATABASE_URL)$/i;
/** `$NAME`, `${NAME}`, `${NAME:-x}`: the value itself (`${#NAME}` and `${NAME:+set}` only tell whether it is set). */
const VALUE_EXPANSION = /\$(?:\{([A-Za-z_][A-Za-z0-9_]*)(?::?[-=?][^}]*)?\}|([A-Za-z_][A-Za-z0-9_]*))/g;

/**
 * `echo "$AWS_SECRET_ACCESS_KEY"`, `printenv GITHUB_TOKEN`: a secret printed to the terminal goes
 * into the conversation (the model provider, the durable history). Piped on (`echo "$T" | gh auth
 * login --with-token`) it is a hand-over the network rules judge.
 */
const printsSecret: Rule = (inv, ctx) => {
  if (!/^(echo|printf|printenv)$/.test(inv.name) || inv.cmd.pipedOut) return;
  if (stdoutTargets(inv.cmd).length) return;
  const shown = inv.args.find((w) =>
    inv.name === 'printenv'
      ? SECRET_VALUE_NAME.test(w.value ?? '')
      : [...w.raw.matchAll(VALUE_EXPANSION)].some((m) => SECRET_VALUE_NAME.test(m[1] ?? m[2] ?? '')),
  );
  if (shown)
    ctx.add(inv, {
      group: 'exfiltrate',
      rule: 'credential_read',
      reason: 'prints a secret into the conversation',
      at: [inv.word, shown],
    });
};

/** Rules every command goes through. */
export const EXFILTRATE_GENERIC: Rule[] = [
  secretOperands,
  printsSecret,
  (inv, ctx) => {
    if (SENDERS.has(inv.name) && !EXFILTRATE_RULES[inv.name]) sender(inv, ctx);
  },
  serveFiles,
];
