/**
 * Workspace roots: a conversation's `cwd` lies inside a root, and never is, lies in or holds a
 * folder the worker depends on. The pure decision over a table of resolved paths, then the
 * file-system steps (realpath) over real folders with symlink tricks.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { WorkerFacts, WorkspacePolicy } from '../../runtime/workspace-roots.js';
import { mountAliases, mountsInside, parseMountinfo } from '../../runtime/mount-aliases.js';
import {
  MAX_CWD_CHARS,
  buildWorkspacePolicy,
  confineCwd,
  decideCwd,
  guardsFor,
  rawCwdProblem,
  vetRoot,
  within,
} from '../../runtime/workspace-roots.js';

const FACTS: WorkerFacts = {
  homes: ['/home/alice'],
  heraldHomes: ['/home/alice/.herald'],
  projectRoots: ['/opt/herald'],
  tmps: ['/tmp'],
  sandboxRuntimes: ['/tmp/herald-sandbox-abc'],
  installs: ['/opt/herald/node_modules', '/srv/shared/node_modules'],
  xdg: ['/data/xdg-config'],
  systemAliases: [{ path: '/usr/lib', why: 'system libraries' }],
};

function policy(roots: string[], caseInsensitive = false, facts = FACTS): WorkspacePolicy {
  return { ...guardsFor(facts), roots, refusedRoots: [], caseInsensitive, source: 'test' };
}

const P = policy(['/home/alice/workspaces', '/srv/work', '/tmp', '/data']);

describe('decideCwd (resolved paths)', () => {
  const cases: Array<[string, RegExp | 'ok']> = [
    ['/home/alice/workspaces/proj', 'ok'],
    ['/home/alice/workspaces', 'ok'],
    ['/srv/work/a/b', 'ok'],
    ['/tmp/job-1', 'ok'],
    ['/', /the whole file system/],
    ['/proc', /process table/],
    ['/proc/self/cwd', /lies in \/proc/],
    ['/sys', /device and driver tree/],
    ['/dev/shm', /lies in \/dev/],
    ['/run/postgresql', /lies in \/run/],
    ['/var/run/postgresql', /lies in \/var\/run/],
    ['/etc', /configuration/],
    ['/etc/ssh', /lies in \/etc/],
    ['/usr/local/bin', /lies in \/usr/],
    ['/usr/lib/x', /lies in \/usr/],
    ['/var/lib/postgresql', /lies in \/var\/lib/],
    ['/var/spool/cron', /lies in \/var\/spool/],
    ['/var', /holds \/var\/run/],
    ['/home/alice', /the worker’s home/],
    ['/home', /a parent of the worker’s home/],
    ['/home/alice/.ssh', /dot-folder of the worker’s home/],
    ['/home/alice/.config/gh', /dot-folder of the worker’s home/],
    ['/home/alice/.herald', /the Herald home/],
    ['/home/alice/.herald/temporal', /lies in \/home\/alice\/.herald, the Herald home/],
    ['/opt/herald', /Herald’s own install/],
    ['/opt/herald/workers', /lies in \/opt\/herald/],
    ['/opt', /holds \/opt\/herald/],
    ['/srv/shared/node_modules/zod', /code the worker runs/],
    ['/srv', /holds \/srv\/shared\/node_modules/],
    ['/data/xdg-config/herald', /XDG/],
    ['/data', /holds \/data\/xdg-config/],
    ['/tmp', /shared temp folder/],
    ['/tmp/herald-sandbox-abc', /the sandbox’s runtime files/],
    ['/tmp/herald-sandbox-abc/seccomp', /lies in \/tmp\/herald-sandbox-abc/],
    ['/tmp/herald-sandbox-Xy12Zq', /a Herald sandbox’s runtime files/],
    ['/tmp/herald-sandbox-it-Xy12Zq', 'ok'],
    ['/tmp/.X11-unix', /hidden folder of the temp folder/],
    ['/tmp/tmux-0', /another program’s sockets/],
    ['/tmp/ssh-XXXXabcd', /another program’s sockets/],
    ['/home/bob/proj', /outside the workspace roots/],
    ['/root', /outside the workspace roots/],
    ['/srv/workshop', /outside the workspace roots/],
    ['/home/alice/workspaces-evil', /outside the workspace roots/],
  ];
  for (const [path, want] of cases)
    it(`${path}: ${want === 'ok' ? 'a workspace' : 'refused'}`, () => {
      const v = decideCwd(path, P);
      if (want === 'ok') assert.deepEqual(v, { ok: true, cwd: path });
      else {
        assert.equal(v.ok, false);
        assert.match((v as { why: string }).why, want);
      }
    });

  it('case variants: exact on a case-sensitive file system, folded where it is not', () => {
    assert.match((decideCwd('/HOME/alice/workspaces/p', P) as { why: string }).why, /outside/);
    const ci = policy(['/home/alice/workspaces'], true);
    assert.equal(decideCwd('/home/alice/WORKSPACES/p', ci).ok, true);
    assert.match((decideCwd('/PROC', ci) as { why: string }).why, /process table/);
    assert.match((decideCwd('/Home/Alice/.HERALD/temporal', ci) as { why: string }).why, /Herald home/);
  });

  it('no roots: everything is refused', () => {
    assert.equal(decideCwd('/home/alice/workspaces/p', policy([])).ok, false);
  });

  it('a service user whose home lies in /var/lib keeps its workspaces; /var/lib itself stays refused', () => {
    const svc = policy(['/var/lib/herald/workspaces'], false, { ...FACTS, homes: ['/var/lib/herald'] });
    assert.equal(decideCwd('/var/lib/herald/workspaces/p', svc).ok, true);
    assert.equal(vetRoot('/var/lib/herald/workspaces', svc), undefined);
    assert.equal(decideCwd('/var/lib', svc).ok, false);
    assert.equal(decideCwd('/var/lib/postgresql', svc).ok, false);
  });
});

describe('within', () => {
  it('is a path prefix, not a string prefix', () => {
    assert.equal(within('/a/b', '/a/b'), true);
    assert.equal(within('/a/b', '/a/b/c'), true);
    assert.equal(within('/a/b', '/a/bc'), false);
    assert.equal(within('/', '/x'), true);
  });
});

describe('vetRoot', () => {
  const cases: Array<[string, RegExp | undefined]> = [
    ['/', /whole file system/],
    ['/tmp', undefined],
    ['/home/alice', /worker’s home/],
    ['/home', /parent/],
    ['/home/alice/workspaces', undefined],
    ['/srv', undefined],
    ['/etc/projects', /lies in \/etc/],
    ['/proc', /process table/],
    ['/home/alice/.herald/ws', /Herald home/],
    ['/opt/herald', /Herald’s own install/],
    ['/opt/herald/ws', /lies in \/opt\/herald/],
    ['/tmp/herald-sandbox-x1y2z3', /sandbox/],
    ['/home/alice/.config/ws', /dot-folder/],
  ];
  for (const [root, want] of cases)
    it(`${root} as a root: ${want ? 'refused' : 'kept'}`, () => {
      const why = vetRoot(root, P);
      if (want) assert.match(why ?? '', want);
      else assert.equal(why, undefined);
    });
});

describe('rawCwdProblem', () => {
  it('refuses empty, NUL bytes, control characters and paths longer than PATH_MAX', () => {
    assert.match(rawCwdProblem('') ?? '', /empty/);
    assert.match(rawCwdProblem('/home/alice/workspaces/a\u0000/etc') ?? '', /control characters/);
    assert.match(rawCwdProblem('/home/alice/workspaces/a\nb') ?? '', /control characters/);
    assert.match(rawCwdProblem(`/${'a'.repeat(MAX_CWD_CHARS)}`) ?? '', /too long/);
    assert.equal(rawCwdProblem('/home/alice/workspaces/ok'), undefined);
  });
});

describe('confineCwd (real folders)', () => {
  let base: string;
  let root: string;
  let heraldHome: string;
  let p: WorkspacePolicy;
  before(async () => {
    base = mkdtempSync(join(tmpdir(), 'herald-roots-'));
    root = join(base, 'root');
    heraldHome = join(base, 'herald-home');
    mkdirSync(join(root, 'proj', 'sub'), { recursive: true });
    mkdirSync(heraldHome);
    mkdirSync(join(base, 'other'));
    writeFileSync(join(root, 'file.txt'), 'x');
    symlinkSync('/etc', join(root, 'to-etc'));
    symlinkSync(heraldHome, join(root, 'to-home'));
    symlinkSync(join(root, 'proj'), join(root, 'to-proj'));
    symlinkSync(root, join(base, 'root-link'));
    symlinkSync('/', join(base, 'slash-link'));
    p = await buildWorkspacePolicy({
      setting: {
        roots: [join(base, 'root-link'), join(base, 'missing'), join(base, 'slash-link'), heraldHome],
        source: 'test',
        isDefault: false,
      },
      heraldHome,
    });
  });
  after(() => rmSync(base, { recursive: true, force: true }));

  it('a root that is a symlink is used as the folder it resolves to; missing or guarded roots are set aside', () => {
    assert.deepEqual(p.roots, [root]);
    assert.deepEqual(
      p.refusedRoots.map((r) => r.why.replace(/,.*/, '')),
      ['no such folder', 'it is the whole file system', 'it is the Herald home (Temporal’s and Postgres’s data'],
    );
  });

  const ok = async (cwd: string | undefined, fallback?: string) => {
    const v = await confineCwd(cwd, fallback, p);
    assert.ok(v.ok, `expected ${cwd} allowed, got ${!v.ok ? v.why : ''}`);
    return v.cwd;
  };
  const refused = async (cwd: string | undefined, why: RegExp, fallback?: string) => {
    const v = await confineCwd(cwd, fallback, p);
    assert.equal(v.ok, false, `expected ${cwd} refused`);
    assert.match((v as { why: string }).why, why);
  };

  it('a folder inside the root, named through the root link, a trailing slash or a symlink inside', async () => {
    assert.equal(await ok(join(root, 'proj')), join(root, 'proj'));
    assert.equal(await ok(`${join(base, 'root-link')}/proj/sub/`), join(root, 'proj', 'sub'));
    assert.equal(await ok(join(root, 'to-proj')), join(root, 'proj'));
    assert.equal(await ok(`${root}/proj/sub/..`), join(root, 'proj'));
  });

  it('relative names are taken against the default workspace', async () => {
    assert.equal(await ok('sub', join(root, 'proj')), join(root, 'proj', 'sub'));
    await refused('../../..', /outside the workspace roots|refused/, join(root, 'proj'));
    await refused('proj', /relative and there is no default/);
  });

  it('a symlink inside a root pointing to /etc or the Herald home is refused', async () => {
    await refused(join(root, 'to-etc'), /\/etc is refused/);
    await refused(join(root, 'to-etc', 'ssh'), /lies in \/etc/);
    await refused(join(root, 'to-home'), /Herald home/);
  });

  it('.. segments out of the root, and `link/..` as the kernel reads it', async () => {
    await refused(`${root}/proj/../../other`, /outside the workspace roots/);
    await refused(`${root}/proj/../../..`, /shared temp folder/);
    // to-etc/.. is / (the parent of /etc), not the root.
    await refused(`${root}/to-etc/..`, /whole file system/);
    await refused(base, /holds .*herald-home, the Herald home/);
  });

  it('system folders, whatever the roots say, without looping on them', async () => {
    const started = Date.now();
    for (const dir of ['/', '/proc', '/proc/self', '/sys', '/dev', '/etc', '/run', '/var/run'])
      await refused(dir, /refused/);
    assert.ok(Date.now() - started < 2000);
  });

  it('missing folders, files, NUL bytes, very long paths', async () => {
    await refused(join(root, 'nope'), /no such directory/);
    await refused(join(root, 'file.txt'), /not a directory/);
    await refused(`${root}/proj\u0000/../../../etc`, /control characters/);
    await refused(`${root}/${'a/'.repeat(2100)}`, /too long/);
    await refused(`${root}/${'a'.repeat(300)}/b`, /no such directory.*ENAMETOOLONG/);
  });

  it('no cwd: the default workspace, decided the same way', async () => {
    assert.equal(await ok(undefined, join(root, 'proj')), join(root, 'proj'));
    await refused(undefined, /\/etc is refused/, '/etc');
    await refused(undefined, /no workspace named/);
  });

  it('the built-in default root is made when missing', async () => {
    const made = join(base, 'made', 'workspaces');
    const q = await buildWorkspacePolicy({
      setting: { roots: [made], source: 'default', isDefault: true },
      heraldHome,
      create: true,
    });
    assert.deepEqual(q.roots, [made]);
  });
});

describe('bind mounts (the mount table)', () => {
  const table = parseMountinfo(
    [
      '22 27 0:21 / /proc rw,relatime - proc proc rw',
      '27 1 254:0 / / rw,relatime - ext4 /dev/vda rw',
      '40 27 254:0 /opt/herald/node_modules /home/alice/workspaces/nm rw - ext4 /dev/vda rw',
      '41 27 254:0 /etc /home/alice/workspaces/proj/conf rw - ext4 /dev/vda rw',
      '42 27 254:0 /srv/data /home/alice/workspaces/with\\040space rw - ext4 /dev/vda rw',
      '43 27 0:50 / /home/alice/workspaces/scratch rw - tmpfs tmpfs rw',
      'not a mount line',
    ].join('\n'),
  );
  it('parses /proc/self/mountinfo, octal escapes included', () => {
    assert.equal(table.length, 6);
    assert.equal(table[4]!.mountPoint, '/home/alice/workspaces/with space');
  });
  it('names a folder by every mount of its file system', () => {
    assert.deepEqual(mountAliases('/home/alice/workspaces/nm/zod', table), ['/opt/herald/node_modules/zod']);
    assert.deepEqual(mountAliases('/opt/herald/node_modules', table), ['/home/alice/workspaces/nm']);
    assert.deepEqual(mountAliases('/home/alice/workspaces/scratch/x', table), []);
    assert.deepEqual(mountsInside('/home/alice/workspaces/proj', table), ['/home/alice/workspaces/proj/conf']);
  });
  it('a bind of a guarded folder inside a root is refused, and so is a workspace holding one', () => {
    assert.match(
      (decideCwd('/home/alice/workspaces/nm', P, table) as { why: string }).why,
      /it is \/opt\/herald\/node_modules mounted again/,
    );
    assert.match((decideCwd('/home/alice/workspaces/proj', P, table) as { why: string }).why, /a mount of \/etc/);
    assert.equal(decideCwd('/home/alice/workspaces/with space', P, table).ok, true);
    assert.equal(decideCwd('/home/alice/workspaces/scratch', P, table).ok, true);
  });
});
