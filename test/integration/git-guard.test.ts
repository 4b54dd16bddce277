/**
 * The git guard end to end (sandbox on, approvals off): a model plants git configuration through
 * the real `terminal` tool, in every way of test/support/git-plants.ts, and afterwards the user's
 * own `git status`, `git log`, `git diff` (and each plant's own command: the alias, a fetch, a
 * commit) run on the host, in a terminal so that pagers run too. None of them may run anything.
 * The same plants run without the sandbox first, to prove each one would fire.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { GitPlant } from '../support/git-plants.js';
import { GIT_PLANTS } from '../support/git-plants.js';
import type { TestStack } from '../support/stack.js';
import { createTestStack } from '../support/stack.js';

const MAX_ENTRIES = 20_000;

describe('git guard', () => {
  let stack: TestStack;
  let root: string;
  let home: string;
  let marks: string;
  let outside: string;

  const env = () => ({ PATH: process.env.PATH, HOME: home, GIT_CONFIG_NOSYSTEM: '1' });
  const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
  const mark = (p: GitPlant) => join(marks, p.id);
  const planted = (p: GitPlant) =>
    `mkdir -p ${p.id} && cd ${p.id} && { ${p.command.replaceAll('{{MARK}}', mark(p)).replaceAll('{{OUTSIDE}}', outside)}; }`;
  /** A project folder that is a git repository with one commit, as a user's would be. */
  const project = (name: string) => {
    const ws = join(root, name);
    mkdirSync(ws);
    execFileSync('git', ['init', '-q', ws]);
    writeFileSync(join(ws, 'README.md'), '# a project\n');
    execFileSync('git', ['-C', ws, 'add', '-A']);
    execFileSync('git', ['-C', ws, '-c', 'user.name=u', '-c', 'user.email=u@u', 'commit', '-qm', 'init'], {
      env: env(),
    });
    return ws;
  };
  /** The user's git on the host, in a terminal (so that a pager would run). */
  const userGit = (dir: string, p: GitPlant) => {
    for (const args of [['status'], ['log', '-1'], ['diff'], ...(p.git ?? [])])
      spawnSync('script', ['-qec', ['git', ...args].map(quote).join(' '), '/dev/null'], {
        cwd: dir,
        env: env(),
        timeout: 15_000,
        stdio: 'ignore',
      });
  };
  const fired = () => readdirSync(marks);
  const clearMarks = () => {
    for (const m of fired()) rmSync(join(marks, m));
  };

  before(async () => {
    root = mkdtempSync(join(tmpdir(), 'herald-git-guard-it-'));
    home = join(root, 'home');
    marks = join(root, 'marks');
    outside = join(root, 'outside');
    mkdirSync(home);
    mkdirSync(marks);
    // A repository outside the workspace that runs the marker (any repository a command could point at).
    execFileSync('git', ['init', '-q', outside]);
    execFileSync('git', ['-C', outside, 'config', 'core.fsmonitor', `touch ${marks}/outside; false`]);
    stack = await createTestStack({
      workspaceRoots: [root],
      configYaml: [
        'approvals:',
        '  mode: "off"',
        'tools:',
        '  terminal:',
        '    timeoutSeconds: 30',
        'sandbox:',
        '  mode: required',
        '  gitGuard:',
        `    maxEntries: ${MAX_ENTRIES}`,
        '',
      ].join('\n'),
    });
  });

  after(async () => {
    await stack?.close();
    rmSync(root, { recursive: true, force: true });
  });

  it(`neutralises every plant (all ${GIT_PLANTS.length} of them): the user's git status, log and diff on the host run nothing`, async () => {
    // Each plant, run plainly on the host, does fire: the test below tests something.
    const control = project('control');
    for (const p of GIT_PLANTS) {
      execFileSync('bash', ['-c', planted(p)], { cwd: control, env: env(), stdio: 'ignore' });
      userGit(join(control, p.id, p.where), p);
      assert.ok(fired().length > 0, `${p.id} fires without the guard`);
      clearMarks();
    }

    const ws = project('ws');
    stack.fake.script([
      { toolCalls: GIT_PLANTS.map((p) => ({ name: 'terminal', arguments: { command: planted(p) } })) },
      // A file named by an include written by an earlier command, now given a program.
      {
        toolCalls: [
          {
            name: 'terminal',
            arguments: {
              command: `printf '[core]\\n\\tfsmonitor = "touch ${marks}/later; false"\\n' > include-later/later.cfg`,
            },
          },
        ],
      },
      { text: 'Planted.' },
    ]);
    const result = await stack.herald.conversation('git-plants').send('plant', { id: 'g-1', start: { cwd: ws } });
    assert.equal(result.final_response, 'Planted.');
    const notes = (await stack.transcript('git-plants'))
      .filter((m) => m.role === 'tool')
      .map((m) => m.content ?? '')
      .join('\n');
    for (const p of GIT_PLANTS) {
      userGit(join(ws, p.id, p.where), p);
      assert.deepEqual(fired(), [], `${p.id}: the user's git ran a planted program`);
      assert.match(notes, new RegExp(`neutralised:[^\\]]*${p.id}/`), `${p.id}: the result says what was neutralised`);
    }
    userGit(ws, { id: 'root', command: '', where: '' });
    assert.deepEqual(fired(), []);
  });

  it('checks around file tools too: a bare repository or a .git file written with write_file runs nothing', async () => {
    const ws = project('files');
    const write = (path: string, content: string) => ({ name: 'write_file', arguments: { path, content } });
    stack.fake.script([
      {
        toolCalls: [
          write('b/HEAD', 'ref: refs/heads/main\n'),
          write('b/objects/info/keep', ''),
          write('b/refs/heads/keep', ''),
          write('b/config', `[core]\n\tbare = true\n[alias]\n\tst = !touch ${marks}/file-alias\n`),
          write('p/.git', `gitdir: ${outside}/.git\n`),
        ],
      },
      { text: 'Written.' },
    ]);
    await stack.herald.conversation('git-files').send('write', { id: 'f-1', start: { cwd: ws } });
    const notes = (await stack.transcript('git-files'))
      .filter((m) => m.role === 'tool')
      .map((m) => m.content ?? '')
      .join('\n');
    assert.match(notes, /b\/config: removed alias\.st/);
    assert.match(notes, /p\/\.git: a \.git file or link leading out of the workspace: renamed/);
    userGit(join(ws, 'b'), { id: 'b', command: '', where: '', git: [['st']] });
    userGit(join(ws, 'p'), { id: 'p', command: '', where: '' });
    assert.deepEqual(fired(), []);
  });

  it('lets git work in a new repository: ordinary configuration stays and nothing is said', async () => {
    const ws = project('work');
    const command =
      'git init -q lib && cd lib && git config pull.rebase true && git remote add origin https://example.com/x.git && ' +
      'echo x > f && git add f && git -c user.name=a -c user.email=a@b commit -qm f && git log --oneline | wc -l';
    stack.fake.script([{ toolCalls: [{ name: 'terminal', arguments: { command } }] }, { text: 'Done.' }]);
    await stack.herald.conversation('git-work').send('work', { id: 'w-1', start: { cwd: ws } });
    const [tool] = (await stack.transcript('git-work')).filter((m) => m.role === 'tool');
    assert.match(tool!.content ?? '', /^1$/m);
    assert.doesNotMatch(tool!.content ?? '', /neutralised|sandbox:/);
    // Read from the file itself: the host's git rightly calls a repository the sandbox user made "dubious".
    const get = (key: string) =>
      execFileSync('git', ['config', '--file', join(ws, 'lib', '.git', 'config'), '--get', key], { env: env() })
        .toString()
        .trim();
    assert.equal(get('pull.rebase'), 'true');
    assert.equal(get('remote.origin.url'), 'https://example.com/x.git');
  });

  it('refuses commands in a workspace larger than its budget, and says so when a command grows one past it', async () => {
    const big = project('big');
    mkdirSync(join(big, 'node_modules'));
    for (let i = 0; i < MAX_ENTRIES + 100; i++) writeFileSync(join(big, 'node_modules', `f${i}`), '');
    const small = project('small');
    stack.fake.script([
      { toolCalls: [{ name: 'terminal', arguments: { command: 'echo ran' } }] },
      { text: 'Big done.' },
    ]);
    await stack.herald.conversation('git-big').send('go', { id: 'b-1', start: { cwd: big } });
    const [refused] = (await stack.transcript('git-big')).filter((m) => m.role === 'tool');
    assert.match(refused!.content ?? '', /more than 20,000 files and folders.*sandbox\.gitGuard\.maxEntries/);
    assert.doesNotMatch(refused!.content ?? '', /^ran$/m);

    stack.fake.script([
      {
        toolCalls: [
          {
            name: 'terminal',
            arguments: { command: `mkdir m && cd m && seq ${MAX_ENTRIES + 100} | xargs touch && echo made` },
          },
        ],
      },
      { toolCalls: [{ name: 'terminal', arguments: { command: 'echo ran' } }] },
      { text: 'Small done.' },
    ]);
    await stack.herald.conversation('git-grow').send('go', { id: 's-1', start: { cwd: small } });
    const [grew, next] = (await stack.transcript('git-grow')).filter((m) => m.role === 'tool');
    assert.match(grew!.content ?? '', /made[\s\S]*more than 20,000 files and folders[\s\S]*next commands are refused/);
    assert.match(next!.content ?? '', /Refused: the workspace holds more than 20,000/);
    assert.equal(existsSync(join(marks, 'outside')), false);
  });
});
