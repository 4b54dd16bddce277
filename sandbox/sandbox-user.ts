/**
 * The host account sandboxed tools run as when the worker is root: `herald-sandbox`, an
 * unprivileged system account (`herald doctor --fix` and the Dockerfile create it), or, where no
 * such account exists, the fixed id 65533 for both user and group. 65533 is in the range Debian
 * reserves and never hands out (65000–65533), so no login account owns it; a fixed id rather than
 * an account made at worker start keeps a worker from editing /etc/passwd by itself. A worker that
 * is not root cannot switch users: its tools keep its own uid (behind a user namespace).
 */
import { readFileSync } from 'node:fs';

export const SANDBOX_ACCOUNT = 'herald-sandbox';
export const FIXED_SANDBOX_ID = 65533;

export interface SandboxIdentity {
  uid: number;
  gid: number;
  /** `account`: the herald-sandbox account; `fixed`: the fixed id, with no account. */
  source: 'account' | 'fixed';
}

export type IdentityResult = { ok: true; identity: SandboxIdentity } | { ok: false; reason: string };

/** `name:x:id:…` lines of /etc/passwd or /etc/group. */
function entries(file: string): Array<{ name: string; id: number; gid: number }> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return [];
  }
  return text
    .split('\n')
    .map((l) => l.split(':'))
    .filter((f) => f.length >= 3 && /^\d+$/.test(f[2]!))
    .map((f) => ({ name: f[0]!, id: Number(f[2]), gid: /^\d+$/.test(f[3] ?? '') ? Number(f[3]) : -1 }));
}

/** Which uid and gid the sandbox user is on this machine (from the account files given, for tests). */
export function sandboxIdentity(passwd = '/etc/passwd', group = '/etc/group'): IdentityResult {
  const users = entries(passwd);
  const groups = entries(group);
  const account = users.find((u) => u.name === SANDBOX_ACCOUNT);
  if (account) {
    const g = groups.find((x) => x.name === SANDBOX_ACCOUNT)?.id ?? account.gid;
    if (account.id === 0 || g === 0 || g < 0)
      return {
        ok: false,
        reason: `the ${SANDBOX_ACCOUNT} account has uid ${account.id} / gid ${g}: it must not be root`,
      };
    return { ok: true, identity: { uid: account.id, gid: g, source: 'account' } };
  }
  const userClash = users.find((u) => u.id === FIXED_SANDBOX_ID);
  const groupClash = groups.find((x) => x.id === FIXED_SANDBOX_ID);
  const clash = userClash
    ? `uid ${FIXED_SANDBOX_ID} (${userClash.name})`
    : groupClash
      ? `gid ${FIXED_SANDBOX_ID} (${groupClash.name})`
      : '';
  if (clash)
    return {
      ok: false,
      reason: `no ${SANDBOX_ACCOUNT} account, and the fixed sandbox id ${clash} belongs to another account: run \`herald doctor --fix\``,
    };
  return { ok: true, identity: { uid: FIXED_SANDBOX_ID, gid: FIXED_SANDBOX_ID, source: 'fixed' } };
}

/** /etc/passwd and /etc/group as the sandbox shows them: the host's, plus the sandbox user when it has no account. */
export function accountFiles(identity: SandboxIdentity, home: string): { passwd: string; group: string } | undefined {
  if (identity.source === 'account') return undefined;
  const read = (f: string) => {
    try {
      const t = readFileSync(f, 'utf8');
      return t.endsWith('\n') || t === '' ? t : `${t}\n`;
    } catch {
      return '';
    }
  };
  return {
    passwd: `${read('/etc/passwd')}${SANDBOX_ACCOUNT}:x:${identity.uid}:${identity.gid}:Herald tool sandbox:${home}:/bin/bash\n`,
    group: `${read('/etc/group')}${SANDBOX_ACCOUNT}:x:${identity.gid}:\n`,
  };
}

/** The command that creates the account (`herald doctor --fix`; the Dockerfile runs the same). */
export const CREATE_ACCOUNT = [
  'useradd',
  '--system',
  '--user-group',
  '--no-create-home',
  '--home-dir',
  '/nonexistent',
  '--shell',
  '/usr/sbin/nologin',
  SANDBOX_ACCOUNT,
];
