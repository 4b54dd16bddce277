/**
 * Where a path points, for the rules: the root, a system folder, a home (the user's or another's),
 * a credential or shell-startup file, a block device, outside the workspace, or inside it.
 * Paths are resolved lexically against the directory `cd` left the shell in (`.` is the
 * workspace, `~` the home); `..` is followed, so `/tmp/..` is the root and `~/..` is `/home`.
 */

/** The user's home, symbolically (`~`); the marker keeps it apart from any real `/home/<name>`. */
const HOME_MARK = '\u0000';
const HOME = `/home/${HOME_MARK}user`;

export type Place = 'root' | 'system' | 'home' | 'outside' | 'workspace' | 'unknown';

/**
 * A pure question about a path and the directory it is read from, remembered: every operand of
 * every command is asked it by several rules, and the answers are regular expressions over the
 * path. Bounded: the memory is dropped whole when it grows past a few thousand paths.
 */
function remembered<T>(ask: (value: string, cwd: string | null) => T): (value: string, cwd: string | null) => T {
  const known = new Map<string, T>();
  return (value, cwd) => {
    const key = `${cwd}\u0000${value}`;
    if (known.has(key)) return known.get(key)!;
    if (known.size >= 4096) known.clear();
    const answer = ask(value, cwd);
    known.set(key, answer);
    return answer;
  };
}

/** Top-level folders whose loss breaks the machine (their recursive delete is never allowed). */
const SYSTEM_DIRS = new Set([
  '/bin',
  '/boot',
  '/dev',
  '/etc',
  '/home',
  '/lib',
  '/lib32',
  '/lib64',
  '/libx32',
  '/media',
  '/mnt',
  '/opt',
  '/proc',
  '/root',
  '/run',
  '/sbin',
  '/snap',
  '/srv',
  '/sys',
  '/usr',
  '/var',
  '/Users',
  '/System',
  '/Library',
  '/Applications',
  '/private',
  '/Volumes',
  '/cores',
  '/nix',
  '/usr/local',
  '/usr/bin',
  '/usr/lib',
  '/usr/sbin',
  '/var/lib',
  '/var/log',
  '/var/db',
  '/var/cache',
  '/var/spool',
  '/usr/share',
  '/usr/include',
  '/usr/libexec',
  '/usr/local/bin',
  '/usr/local/lib',
  '/lib/modules',
  '/boot/efi',
  // macOS: /etc, /var and /tmp live under /private; the system and its libraries under /System, /Library.
  '/private/var',
  '/private/etc',
  '/System/Library',
  '/Library/Application Support',
  '/Library/LaunchDaemons',
  '/Library/LaunchAgents',
  '/opt/homebrew',
]);

/** Normalise `..` and `.` segments of an absolute path. */
function normalise(abs: string): string {
  // Most paths have no empty, `.` or `..` segment and are already normal: every operand of every
  // command comes through here, so they skip the split and join.
  if (!abs.includes('//') && !abs.includes('/.') && !abs.endsWith('/')) return abs;
  const out: string[] = [];
  for (const seg of abs.split('/')) {
    if (seg === '' || seg === '.') continue;
    if (seg === '..') out.pop();
    else out.push(seg);
  }
  return `/${out.join('/')}`;
}

/** The absolute (symbolic-home) path of a word's value, or undefined when it depends on an unknown directory. */
export function absolute(value: string, cwd: string | null): string | undefined {
  let p = value;
  if (p === '~' || p.startsWith('~/')) p = HOME + p.slice(1);
  else if (/^~[A-Za-z_][\w.-]*(\/|$)/.test(p)) p = p.replace(/^~([^/]*)/, p.startsWith('~root') ? '/root' : '/home/$1');
  if (p.startsWith('/')) return normalise(p);
  if (cwd === null) return undefined;
  const base = cwd === '.' ? '/\u0000workspace' : (absolute(cwd, '.') ?? '/\u0000workspace');
  return normalise(`${base}/${p}`);
}

/** Strip a trailing glob of "everything in": `/*`, `/.*`, `/{*,.*}`. */
function withoutAll(p: string): { path: string; all: boolean } {
  const m = /^(.*?)\/(?:\*|\.\*|\.\[\^\.\]\*|\{\*,\.\*\}|\.\?\*|\*\*)$/.exec(p);
  if (m) return { path: m[1] === '' ? '/' : m[1]!, all: true };
  if (p === '*' || p === '.*') return { path: '.', all: true };
  return { path: p, all: false };
}

/**
 * `/`, or a whole top-level system folder (`/usr`, `/etc`, `/bin`…, and `/usr/bin`, `/usr/lib`):
 * a recursive permission or ownership change there breaks the machine (setuid programs, ssh,
 * sudo). Folders below them (`/usr/local`, `/etc/nginx`) are ordinary admin work.
 */
const SYSTEM_TREES =
  /^\/(?:etc|usr|bin|sbin|lib|lib32|lib64|libx32|boot|var|root|dev|sys|proc|System|Library|private|usr\/(?:bin|sbin|lib|lib32|lib64|libexec))$/;

export function isSystemTree(value: string | null, cwd: string | null, glob = false): boolean {
  const place = placeOf(value, cwd, glob);
  if (place === 'root') return true;
  const path = absolute(value ?? '', cwd)?.replace(/\/+$/, '');
  return place === 'system' && SYSTEM_TREES.test(path ?? '');
}

/** Somewhere that keeps what is written: not /dev/null, a standard stream or a terminal. */
export function keepsWrites(value: string, cwd: string | null): boolean {
  return !/^\/dev\/(null|stdout|stderr|fd\/\d+|tty\w*|pts\/\d+)$/.test(absolute(value, cwd) ?? value);
}

/** Where a path argument points (`glob`: it held unquoted glob characters). */
export function placeOf(value: string | null, cwd: string | null, glob = false): Place {
  if (value === null) return 'unknown';
  return glob ? placeOfPattern(value, cwd) : placeOfPath(value, cwd);
}

const placeOfPattern = remembered((value, cwd) => place(value, cwd, true));
const placeOfPath = remembered((value, cwd) => place(value, cwd, false));

function place(value: string, cwd: string | null, glob: boolean): Place {
  const { path: stripped } = withoutAll(value);
  // A glob in the first component of an absolute path could be any top-level folder: `/e*`, `/?in`.
  if (glob && /^\/[^/]*[*?[]/.test(value)) return 'root';
  const abs = absolute(stripped, cwd);
  if (abs === undefined) return 'unknown';
  if (abs === '/') return 'root';
  if (
    abs === HOME ||
    (/^\/home\/[^/]+$/.test(abs) && !abs.includes(HOME_MARK)) ||
    /^\/Users\/[^/]+$/.test(abs) ||
    abs === '/root' ||
    abs === '/var/root' ||
    abs === '/private/var/root'
  )
    return 'home';
  if (SYSTEM_DIRS.has(abs)) return 'system';
  if (abs.startsWith('/\u0000workspace')) return 'workspace';
  return 'outside';
}

/**
 * A tool's cache folder in the home (`~/.cache/pip`): what is in it is downloaded or built again on
 * demand. Not with a trailing slash, which follows a planted `~/.cache/x -> ~` link.
 */
export function isUserCache(value: string | null, cwd: string | null): boolean {
  const abs = value === null || value.includes('..') || value.endsWith('/') ? undefined : absolute(value, cwd);
  return abs !== undefined && abs.startsWith(`${HOME}/.cache/`) && abs.length > `${HOME}/.cache/`.length;
}

/** The workspace-or-not test for writes and deletes: `cd /` or an absolute path leaves the workspace. */
export function insideWorkspace(value: string | null, cwd: string | null): boolean {
  return placeOf(value, cwd) === 'workspace';
}

/** Files and folders that hold credentials or history; reading them out is never routine. */
const CREDENTIAL =
  /(^|\/)(\.ssh(\/|$)|\.aws(\/|$)|\.azure(\/|$)|\.gnupg(\/|$)|\.password-store(\/|$)|\.docker(\/config\.json)?$|\.kube(\/config)?$|\.kube\/|\.netrc$|\.git-credentials$|\.config\/gh(\/|$)|\.config\/hub$|\.config\/gcloud(\/|$)|\.config\/op(\/|$)|\.npmrc$|\.yarnrc(\.yml)?$|\.pypirc$|\.cargo\/credentials(\.toml)?$|\.gem\/credentials$|\.m2\/settings(-security)?\.xml$|\.terraform\.d\/credentials|\.vault-token$|\.pgpass$|\.my\.cnf$|\.mylogin\.cnf$|\.(bash|zsh|python|psql|mysql|node_repl|sqlite)_history$|\.local\/share\/keyrings(\/|$)|id_(rsa|dsa|ecdsa|ed25519)(\.pub)?$|\.claude\/\.credentials\.json$|\.codex\/auth\.json$|Library\/Keychains(\/|$)|\.config\/(google-chrome|chromium|BraveSoftware)(\/|$)|\.mozilla\/firefox(\/|$)|Library\/Application Support\/(Google\/Chrome|Firefox|BraveSoftware)(\/|$)|Login Data$|Cookies$|\.gradle\/gradle\.properties$|\.config\/composer\/auth\.json$|\.composer\/auth\.json$|\.cache\/huggingface\/token$|\.huggingface\/token$|\.config\/solana\/id\.json$|\.s3cfg$|\.boto$|\.databrickscfg$|\.config\/rclone\/rclone\.conf$|\.config\/hcloud\/cli\.toml$|\.config\/doctl\/config\.yaml$|\.oci\/config$|\.terraformrc$|\.config\/ngrok\/ngrok\.yml$|\.ngrok2\/ngrok\.yml$|\.netlify\/config\.json$|\.config\/configstore\/firebase-tools\.json$|\.fly\/config\.yml$|\.pulumi\/credentials\.json$|\.config\/sops\/age\/keys\.txt$|\.config\/containers\/auth\.json$|\.authinfo(\.gpg)?$|\.msmtprc$|\.config\/glab-cli\/config\.yml$|\.circleci\/cli\.yml$|\.ethereum\/keystore(\/|$)|\.bitcoin\/wallet\.dat$|\.electrum\/wallets(\/|$)|\.config\/Bitwarden( CLI)?(\/|$)|\.config\/op\/config$|\.wrangler\/config(\/|$)|\.config\/\.wrangler(\/|$)|\.vercel\/auth\.json$|\.local\/share\/com\.vercel\.cli\/auth\.json$|[^/]+\.(p12|pfx|jks|keystore)$|master\.key$|[^/]*(private|priv|server|tls|ssl|signing)[^/]*\.key$|privkey\.pem$)|^\/etc\/(shadow|gshadow|sudoers|ssh\/ssh_host_[a-z0-9]+_key)(-|$)|^\/(var\/)?run\/secrets(\/|$)/;

/** A path naming a credential or secret (in the home or as an absolute system path). */
export function isCredentialPath(value: string | null, cwd: string | null): boolean {
  return value !== null && credentialPath(value, cwd);
}

const credentialPath = remembered((value, cwd) => {
  const abs = absolute(value, cwd) ?? value;
  const inHome = abs.startsWith(`${HOME}/`) || /^\/(home\/[^/]+|root|Users\/[^/]+)\//.test(abs);
  if (/^\/proc\/[^/]+\/environ$/.test(abs) || /\/proc\/[^/]*\/environ$/.test(value)) return true;
  return (
    CREDENTIAL.test(abs) && (inHome || /^\/(etc|run|var\/run)\//.test(abs) || /id_(rsa|dsa|ecdsa|ed25519)$/.test(abs))
  );
});

/** A project's secrets file (`.env`, `.env.production`; not `.env.example`). */
const DOTENV = /(^|\/)\.env(\.(?!example|sample|template|dist|defaults)[\w.-]+)?$/;

/** A project's private keys: Rails' `config/master.key`, a TLS or signing key, `privkey.pem`. */
const PROJECT_KEY = /(^|\/)(master\.key|[^/]*(private|priv|server|tls|ssl|signing)[^/]*\.key|privkey\.pem)$/;

/** A credential, or a project's `.env` or private key: what must not be read out or sent anywhere. */
export function isSecretFile(value: string | null, cwd: string | null): boolean {
  return value !== null && (DOTENV.test(value) || PROJECT_KEY.test(value) || isCredentialPath(value, cwd));
}

/** A process environment path written with a variable (`/proc/$PPID/environ`, `/proc/$(pgrep x)/environ`). */
export function mentionsProcEnviron(raw: string): boolean {
  return /\/proc\/(?:[^/\s'"]*|\$\([^)]*\)|`[^`]*`)\/environ/.test(raw);
}

/** Any process's environment (`/proc/$PPID/environ`, `/proc/*\/environ`). */
export function isProcEnviron(value: string | null): boolean {
  return value !== null && /^\/proc\/[^/]+\/environ$/.test(value.replace(/\/+/g, '/'));
}

/** Files a shell, a login, cron, systemd, ssh or git reads and runs later. */
const STARTUP =
  /(^|\/)(\.bashrc|\.bash_profile|\.bash_login|\.bash_logout|\.profile|\.zshrc|\.zprofile|\.zshenv|\.zlogin|\.kshrc|\.cshrc|\.tcshrc|\.inputrc|\.config\/fish\/config\.fish|\.ssh\/(authorized_keys2?|config|rc|environment)|\.gitconfig|\.config\/git\/config|\.config\/autostart\/[^/]+|\.config\/systemd\/user\/[^/]+|Library\/LaunchAgents\/[^/]+|Library\/LaunchDaemons\/[^/]+|\.config\/pip\/pip\.conf|\.pip\/pip\.conf|\.npmrc|\.pypirc|\.vimrc|\.emacs|\.tmux\.conf|\.xinitrc|\.xprofile|\.envrc|\.vscode\/tasks\.json|\.husky\/[^/]+|\.condarc|\.gemrc|\.bundle\/config)$|^\/etc\/(cron[^/]*|crontab|rc\.local|profile|profile\.d|bash\.bashrc|zsh\/[^/]+|environment|ld\.so\.preload|systemd\/|init\.d\/|sudoers|ssh\/sshd_config|hosts$|passwd$|group$|fstab$|resolv\.conf$)|^\/var\/spool\/cron|^\/Library\/Launch/;

/** A path whose change persists code or alters how the system runs (shell rc, cron, systemd, ssh keys, git config). */
export function isStartupPath(value: string | null, cwd: string | null): boolean {
  if (value === null) return false;
  const abs = absolute(value, cwd) ?? value;
  return STARTUP.test(abs) || STARTUP.test(value);
}

/** Git hooks and git config inside a repository (the workspace's or any). */
export function isGitHookOrConfig(value: string | null): boolean {
  return (
    value !== null &&
    /(^|\/)\.git\/(hooks(\/|$)|config$|config\.worktree$|commondir$|modules\/.+\/(hooks|config))/.test(value)
  );
}

/** A disk or partition (writing it raw destroys the filesystem on it). */
export const BLOCK_DEVICE =
  /^\/dev\/(sd[a-z]+\d*|nvme\d+n\d+(p\d+)?|hd[a-z]\d*|vd[a-z]+\d*|xvd[a-z]+\d*|mmcblk\d+(p\d+)?|disk\d+(s\d+)?|rdisk\d+|dm-\d+|md\d+|mapper\/.+|loop\d+|sr\d+|nbd\d+|zd\d+)$/;

/** Disk names a glob under /dev may stand for (`/dev/sd?`, `/dev/nvme*`). */
const SAMPLE_DISKS = [
  'sda',
  'sdb',
  'sdc',
  'sdb1',
  'nvme0n1',
  'nvme0n1p1',
  'vda',
  'vdb',
  'nvme1n1',
  'hda',
  'xvda',
  'mmcblk0',
  'disk0',
  'disk2s1',
  'md0',
  'dm-0',
  'loop0',
];

/** A disk: a block device's path, or a glob under /dev that matches one (`/dev/sd?`, `/dev/nvme*n1`). */
export function isBlockDevice(path: string): boolean {
  if (BLOCK_DEVICE.test(path)) return true;
  const glob = /^\/dev\/([^/]*[*?[][^/]*)$/.exec(path)?.[1];
  if (!glob) return false;
  const re = new RegExp(`^${globSource(glob)}$`);
  return SAMPLE_DISKS.some((d) => re.test(d) && BLOCK_DEVICE.test(`/dev/${d}`));
}

/** A glob pattern as a regular expression's source: `*` any text, `?` one character, `[…]` a class. */
export function globSource(pattern: string): string {
  return pattern.replace(/\[!?[^\]]+\]|[*?]|[\\^$.|+(){}[\]]/g, (c) =>
    c === '*' ? '[\\s\\S]*' : c === '?' ? '[\\s\\S]' : c.length > 1 ? c.replace(/^\[!/, '[^') : `\\${c}`,
  );
}
